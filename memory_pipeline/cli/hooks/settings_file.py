"""An agent's JSON settings file (Claude Code's settings.json, .mcp.json, ~/.claude.json): read
without losing what the user wrote, written atomically with the file's permissions kept."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from memory_pipeline.errors import BadInputError


def read_settings(path: Path) -> dict:
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return {}
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInputError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); left unchanged") from None
    if not isinstance(document, dict):
        raise BadInputError(f"{path} must hold a JSON object; left unchanged")
    return document


def write_settings(path: Path, document: dict) -> None:
    """Atomic replace, keeping the file's permissions when it existed."""
    from memory_pipeline.resources.workspace import atomic_write_text

    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644
    atomic_write_text(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    os.chmod(path, mode)
