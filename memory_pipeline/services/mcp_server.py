"""The memory tools' calls, as the MCP door (memory_pipeline/mcp_entry.py) hands them over.

The door speaks MCP and checks each call's arguments against the tool's schema; this runs the call
(in the workspace's hook service, or in a process of its own: `python -m memory_pipeline.services.mcp_server`,
one call as JSON on stdin, the answer as JSON on stdout) and answers `{"text": …, "is_error": …}`.

Read-only, progressive disclosure: `search` (one line a hit) → `get` (the hits with their
sources) or `timeline` (what happened around one) → `trace` (a MEMORY.md line back to its
messages); `brief` is the session briefing. The project is the folder the door names (the client's
first root, else its working folder); `project` names another, `all_projects` widens to every one.
A bad argument or a failure below is a tool error the agent reads (one line), never a crash.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from memory_pipeline.config import Settings, configure_process
from memory_pipeline.errors import MemoryPipelineError
from memory_pipeline.flows import memory_tools
from memory_pipeline.resources.files.project_tally import scope_for
from memory_pipeline.resources.projects import named_project, resolve_project
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.projects import ASKED_ALL, ASKED_BY_FOLDER, ASKED_BY_NAME, ProjectScope

if TYPE_CHECKING:
    from memory_pipeline.config import Settings


WIDEN = "all_projects=true"  # how an agent looks at every project


def scope_of(workspace: Workspace, folder: str, settings: Settings, project: str | None = None,
             all_projects: bool = False) -> ProjectScope:
    """The scope by the rule every door shares (resources.project_tally.scope_for)."""
    if all_projects:
        asked, how = None, ASKED_ALL
    elif project:
        asked, how = named_project(project, settings), ASKED_BY_NAME
    else:  # no folder named (a call without one): no project known, the user's own memories
        asked, how = resolve_project(Path(folder) if folder else None, settings), ASKED_BY_FOLDER
    looked = scope_for(workspace, asked, how, widen=WIDEN,
                       no_project="this folder is in no project" if folder else "the client named no folder")
    return ProjectScope(looked.project, looked.note)


def run_tool(workspace: Workspace, settings: Settings, name: str, arguments: dict, folder: str) -> str:
    """The tool's answer (plain text). Raises MemoryPipelineError for what the agent must change."""
    given = dict(arguments)
    scope = scope_of(workspace, folder, settings, given.pop("project", None), given.pop("all_projects", False))
    if name == "trace":
        return memory_tools.trace_memory(workspace, settings, scope, given["target"])
    if name == "search":
        return memory_tools.search_memory(workspace, settings, scope, given.pop("query"), **given)
    if name == "get":
        return memory_tools.get_memories(workspace, settings, scope, given["ids"])
    if name == "timeline":
        return memory_tools.timeline_of(workspace, settings, scope, given.pop("target"), **given)
    if name == "brief":
        return memory_tools.brief_memory(workspace, scope)
    raise MemoryPipelineError(f"unknown tool {name!r}")


def answer_call(request: bytes, settings: Settings) -> str:
    """One call (`{"tool", "arguments", "folder"}` as JSON) → `{"text", "is_error"}` as JSON. Never raises."""
    try:
        call = json.loads(request)
        name, arguments, folder = str(call["tool"]), dict(call["arguments"]), str(call["folder"])
    except (ValueError, KeyError, TypeError):
        return json.dumps({"text": "memory-pipeline mcp: not a tool call", "is_error": True})
    try:
        text, is_error = run_tool(Workspace(settings.workspace).create(), settings, name, arguments, folder), False
    except MemoryPipelineError as exc:
        text, is_error = " ".join(str(exc).split()), True
    except Exception as exc:  # noqa: BLE001 — one line the agent reads, not a traceback
        text, is_error = f"memory-pipeline mcp: internal error: {type(exc).__name__}: {exc}", True
    return json.dumps({"text": text, "is_error": is_error}, ensure_ascii=False)


def main() -> int:
    """One call on stdin, its answer on stdout (the door's path when no hook service answers)."""
    configure_process()
    sys.stdout.write(answer_call(sys.stdin.buffer.read(), Settings.from_env()) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
