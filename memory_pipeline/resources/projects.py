"""Resolving a session's folder to its project on this machine: the git repository it belongs to.

A worktree's `.git` is a file (`gitdir: /repo/.git/worktrees/name`) whose `commondir` leads to the
repository's own `.git`; the project is the folder holding that. A submodule (its gitdir under
`.git/modules/`, no `commondir`) is a project of its own. A folder that does not exist here (a
transcript from another machine, a deleted worktree) is named by MEMORY_PROJECT_MAP or by its path.
"""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.stages.projects import (
    UNKNOWN,
    check_project,
    mapped_project,
    name_of,
    parse_project_map,
    project_from_path,
)
from memory_pipeline.stages.untrusted import has_control, project_name

MAX_DEPTH = 64


def _gitdir_of(dot_git: Path) -> Path | None:
    """The git directory a `.git` file points at (`gitdir: PATH`, relative to the file's folder)."""
    try:
        first = dot_git.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    if not first.startswith("gitdir:"):
        return None
    target = Path(first.removeprefix("gitdir:").strip())
    return (target if target.is_absolute() else dot_git.parent / target).resolve()


def repository_root(folder: Path) -> Path | None:
    """The main worktree of the repository `folder` is in (the folder holding the common `.git`),
    or None outside any repository."""
    try:
        current = folder.resolve()
    except OSError:
        return None
    for candidate in [current, *current.parents][:MAX_DEPTH]:
        dot_git = candidate / ".git"
        if dot_git.is_dir():
            return candidate
        if not dot_git.is_file():
            continue
        gitdir = _gitdir_of(dot_git)
        if gitdir is None:
            return candidate
        common_file = gitdir / "commondir"
        if not common_file.is_file():
            return candidate  # a submodule, or a gitdir kept elsewhere: this folder is the project
        try:
            common = (gitdir / common_file.read_text(encoding="utf-8").strip()).resolve()
        except OSError:
            return candidate
        return common.parent if common.name == ".git" else common.with_name(common.name.removesuffix(".git"))
    return None


def resolve_project(folder: str | Path | None, settings: Settings | None = None) -> str:
    """The project of a session run in `folder`: MEMORY_PROJECT_MAP first, then the repository's
    folder name (worktrees resolve through the common git dir), then the folder's own name. A
    folder holding a line break or another control character names no project."""
    if folder is None or not str(folder).strip() or has_control(str(folder)):
        return UNKNOWN
    settings = settings or Settings.from_env()
    text = str(Path(str(folder)).expanduser())
    mapped = mapped_project(text, parse_project_map(settings.project_map))
    if mapped:
        return mapped
    path = Path(text)
    if not path.is_dir():
        return project_name(project_from_path(text))
    root = repository_root(path)
    if root is not None:
        mapped = mapped_project(str(root), parse_project_map(settings.project_map))
        return mapped or project_name(name_of(str(root)))
    return project_name(name_of(str(path.resolve())))


def named_project(given: str) -> str:
    """`--project` of any command: a folder (a path with `/`, `~…` or `.`) is resolved to its
    project, anything else is a project name (checked)."""
    if "/" in given or given.startswith("~") or given == ".":
        return resolve_project(Path(given).expanduser().resolve())
    return check_project(given)
