"""Writing an approved friction fix into a project's CLAUDE.md or AGENTS.md: file I/O only.

The file belongs to the user's project: it is re-read under a lock right before it is replaced
atomically (temp file beside it, fsync, rename), keeps its permissions, and is only appended to.
"""

from __future__ import annotations

import stat
from pathlib import Path

from memory_pipeline.errors import ServiceError
from memory_pipeline.resources.workspace import Workspace, atomic_write_text
from memory_pipeline.stages.friction.project_file import append_fix

WRITE_ATTEMPTS = 5
NEW_FILE_MODE = 0o644  # a project file others on the team read, like one made by an editor


def _replace_keeping_mode(path: Path, text: str) -> None:
    """Atomically, keeping the file's own permissions (a project file others on the team read)."""
    atomic_write_text(path, text, stat.S_IMODE(path.stat().st_mode) if path.exists() else NEW_FILE_MODE)


def apply_fix_to_project(workspace: Workspace, folder: str, filename: str, *, day: str, change: str,
                         fid: str) -> tuple[Path | None, str]:
    """(the file written, "") or (None, why not): appends the fix's line to folder/filename."""
    if not folder:
        return None, f"{fid}: no project folder was recorded for its sessions; not applied to {filename}"
    project = Path(folder)
    if not project.is_dir():
        return None, f"{fid}: the project folder {folder} does not exist here; not applied to {filename}"
    path = project / filename
    with workspace.locked("project-files"):
        for _ in range(WRITE_ATTEMPTS):
            before = path.read_text(encoding="utf-8") if path.exists() else ""
            after = append_fix(before, day, change, fid)
            if after == before:
                return path, ""
            current = path.read_text(encoding="utf-8") if path.exists() else ""
            if current != before:  # edited while we merged: merge into the new text
                continue
            _replace_keeping_mode(path, after)
            return path, ""
    raise ServiceError(f"{path} changed {WRITE_ATTEMPTS} times while applying {fid}; nothing was written")
