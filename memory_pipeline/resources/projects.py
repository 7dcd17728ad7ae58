"""Resolving a session's folder to its project on this machine: the git repository it belongs to.

A worktree's `.git` is a file (`gitdir: /repo/.git/worktrees/name`) whose `commondir` leads to the
repository's own `.git`; the project is the folder holding that. A submodule (its gitdir under
`.git/modules/`, no `commondir`) is a project of its own. A folder that does not exist here (a
transcript from another machine, a deleted worktree) is named by MEMORY_PROJECT_MAP or by its path.
"""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.resources.workspace import Workspace, read_json_dict
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


def resolve_project(folder: str | Path | None, settings: Settings) -> str:
    """The project of a session run in `folder`: MEMORY_PROJECT_MAP first, then the repository's
    folder name (worktrees resolve through the common git dir), then the folder's own name.

    One path, one project, whether or not the folder exists here: a folder that is gone is named by
    what this workspace recorded when it existed, else by the worktree conventions of its path, else
    by the repository its nearest existing parent is in. A folder holding a line break or another
    control character names no project. `settings` are the door's: MEMORY_PROJECT_MAP, and the
    workspace whose folder record is read."""
    if folder is None or not str(folder).strip() or has_control(str(folder)):
        return UNKNOWN
    return project_name(_resolved(str(folder), settings))


def _resolved(folder: str, settings: Settings) -> str:
    text = str(Path(folder).expanduser())
    mapping = parse_project_map(settings.project_map)
    mapped = mapped_project(text, mapping)
    if mapped:
        return mapped
    path = Path(text)
    by_path = project_from_path(text)
    if path.is_dir():
        root = repository_root(path)
        if root is None:
            return project_from_path(str(path.resolve()))
        name = mapped_project(str(root), mapping) or name_of(str(root))
        if name != by_path:
            FolderRecord(settings).remember(text, name)
        return name
    recorded = FolderRecord(settings).recall(text)
    if recorded is not None or by_path != name_of(text):
        return recorded or by_path
    root = repository_root(_nearest_existing(path))
    return (mapped_project(str(root), mapping) or name_of(str(root))) if root is not None else by_path


def _nearest_existing(path: Path) -> Path:
    return next((p for p in list(path.parents)[:MAX_DEPTH] if p.is_dir()), Path("/"))


class FolderRecord:
    """state/folder-projects.json: the project a folder resolved to while it existed, kept for the
    folders whose path alone names another (a worktree outside its repository), so the same path
    names the same project after the folder is gone."""

    def __init__(self, settings: Settings):
        self.workspace = Workspace(settings.workspace)
        self.path = self.workspace.state_path("folder_projects")

    def _read(self) -> dict[str, str]:
        return read_json_dict(self.path)

    def recall(self, folder: str) -> str | None:
        """The project recorded for `folder` or its nearest recorded parent."""
        known = self._read()
        for candidate in [Path(folder), *Path(folder).parents][:MAX_DEPTH]:
            if str(candidate) in known:
                return known[str(candidate)]
        return None

    def remember(self, folder: str, project: str) -> None:
        if not self.workspace.state.is_dir() or self._read().get(folder) == project:
            return  # never creates a workspace as a side effect
        with self.workspace.locked("folder-projects"):
            known = self._read()
            known[folder] = project
            self.workspace.write_json(self.path, known)


def named_project(given: str, settings: Settings) -> str:
    """`--project` of any command: a folder (a path with `/`, `~…` or `.`) is resolved to its
    project, anything else is a project name (checked)."""
    if "/" in given or given.startswith("~") or given == ".":
        return resolve_project(Path(given).expanduser().resolve(), settings)
    return check_project(given)
