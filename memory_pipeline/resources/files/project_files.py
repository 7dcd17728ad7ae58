"""Writing an approved friction fix into a project's CLAUDE.md or AGENTS.md: file I/O only.

The file belongs to the user's project: it is re-read under a lock right before it is replaced
atomically (temp file beside it, fsync, rename), keeps its permissions, and is only appended to.

The folder came from a transcript, so it is checked before anything is written: an absolute path
with no `.`/`..` part and no control character, the root of a git repository (a `.git` in it),
reached without a symbolic link anywhere on the way, and the file itself a regular file or absent
(never a link). What REVIEW.md showed (`folder/CLAUDE.md`) is exactly the path written.
"""

from __future__ import annotations

import stat
from pathlib import Path

from memory_pipeline.errors import ServiceError
from memory_pipeline.resources.workspace import Workspace, atomic_write_text
from memory_pipeline.stages.friction.project_file import append_fix
from memory_pipeline.stages.untrusted import working_folder

WRITE_ATTEMPTS = 5
NEW_FILE_MODE = 0o644  # a project file others on the team read, like one made by an editor


def _replace_keeping_mode(path: Path, text: str) -> None:
    """Atomically, keeping the file's own permissions (a project file others on the team read)."""
    atomic_write_text(path, text, stat.S_IMODE(path.stat().st_mode) if path.exists() else NEW_FILE_MODE)


def _symlink_on_the_way(path: Path) -> Path | None:
    """The first folder or file from `/` down to `path` that is a symbolic link, or None."""
    for step in [*reversed(path.parents), path]:
        if step.is_symlink():
            return step
    return None


def repository_folder(folder: str) -> str:
    """Where a fix for a session run in `folder` goes: the root of the git repository holding it,
    found without following links; `folder` itself when it is not here or a link is on the way
    (the write then refuses it, with the reason)."""
    checked = working_folder(folder)
    if checked is None or _symlink_on_the_way(Path(checked)) is not None:
        return folder
    for candidate in [Path(checked), *Path(checked).parents]:
        if (candidate / ".git").exists():
            return str(candidate)
    return folder


def refusal(folder: str, filename: str, fid: str) -> str | None:
    """Why folder/filename may not receive a fix, or None when it may."""
    if not folder:
        return f"{fid}: no project folder was recorded for its sessions; not applied to {filename}"
    if working_folder(folder) != folder:
        return f"{fid}: the folder {folder!r} is not an absolute, plain path; not applied"
    project = Path(folder)
    if not project.is_dir():
        return f"{fid}: the project folder {folder} does not exist here; not applied to {filename}"
    if (link := _symlink_on_the_way(project / filename)) is not None:
        return f"{fid}: {link} is a symbolic link; a fix is never written through one (not applied)"
    if not (project / ".git").exists():
        return f"{fid}: {folder} is not the root of a git repository; not applied to {filename}"
    target = project / filename
    if target.exists() and not stat.S_ISREG(target.lstat().st_mode):
        return f"{fid}: {target} is not a regular file; not applied"
    return None


def apply_fix_to_project(workspace: Workspace, folder: str, filename: str, *, day: str, change: str,
                         fid: str) -> tuple[Path | None, str]:
    """(the file written, "") or (None, why not): appends the fix's line to folder/filename."""
    path = Path(folder) / filename
    with workspace.locked("project-files"):
        for _ in range(WRITE_ATTEMPTS):
            if why := refusal(folder, filename, fid):
                return None, why
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
