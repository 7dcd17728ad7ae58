"""pi's memory extension (pure): the shipped TypeScript template (memory_pipeline/integrations/
pi_extension.ts) with the command to run filled in, and how to tell our file from another one.

pi has no shell-command hooks; it loads TypeScript extensions from `~/.pi/agent/extensions/`. Ours
runs `memory-pipeline brief` at session start (the briefing goes into the system prompt) and
`memory-pipeline emit` before a compaction and at shutdown.
"""

from __future__ import annotations

import json

from memory_pipeline.errors import BadInputError

PLACEHOLDER = "__MEMORY_PIPELINE__"
MARKER = "// memory-pipeline pi extension:"
FILE_NAME = "memory-pipeline.ts"


def render_pi_extension(template: str, argv: list[str], workspace: str | None) -> str:
    """The extension with the memory-pipeline command line (and the workspace, when one is set)."""
    if not template.startswith(MARKER) or template.count(PLACEHOLDER) != 1:
        raise BadInputError("the shipped pi extension template is damaged; reinstall memory-pipeline")
    config = {"argv": argv, "env": {"MEMORY_WORKSPACE": workspace} if workspace else {}}
    return template.replace(PLACEHOLDER, json.dumps(config, ensure_ascii=False))


def is_our_pi_extension(text: str | None) -> bool:
    return text is not None and text.startswith(MARKER)
