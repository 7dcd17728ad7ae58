"""An agent's JSON settings file (Claude Code's settings.json, .mcp.json, ~/.claude.json): read
without losing what the user wrote, written atomically with the file's permissions kept, never
through a link (resources/agent_config.py)."""

from __future__ import annotations

import json
from pathlib import Path

from memory_pipeline.errors import BadInputError
from memory_pipeline.resources.agent_config import read_config_text, write_config_text


def read_settings(path: Path, root: Path) -> dict:
    text = read_config_text(path, root)
    if text is None or not text.strip():
        return {}
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInputError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); left unchanged") from None
    if not isinstance(document, dict):
        raise BadInputError(f"{path} must hold a JSON object; left unchanged")
    return document


def write_settings(path: Path, root: Path, document: dict, new_mode: int = 0o644) -> None:
    """Atomic replace, keeping the file's permissions when it existed (`new_mode` when it did not)."""
    write_config_text(path, root, json.dumps(document, indent=2, ensure_ascii=False) + "\n", new_mode)
