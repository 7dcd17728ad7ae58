"""Sessions remembered per project and day (state/project-tally.json): what lets `recall`, `brief`
and the hooks tell whether a folder's project has any memories without reading every observation.

The observations asset writes a day's line each time it runs (observed and indexed-only sessions
alike); a workspace from before the tally is counted once from its observation files.
"""

from __future__ import annotations

import json
from collections import Counter

from memory_pipeline.models import Observation
from memory_pipeline.resources.workspace import DAY_NAME, Workspace
from memory_pipeline.stages.projects import ASKED_ALL, LookedAt, choose_scope


class ProjectTally:
    def __init__(self, workspace: Workspace):
        self.workspace = workspace
        self.path = workspace.state_path("project_tally")

    def set_day(self, day: str, sessions: dict[str, int]) -> None:
        """Sessions per project ("" = none known) of `day`, replacing what the day had."""
        with self.workspace.locked("project-tally"):
            days = self._read()
            days = self._count_observations() if days is None else days  # the first line of an older workspace
            days[day] = {name: n for name, n in sorted(sessions.items()) if n}
            self.workspace.write_json(self.path, {"days": dict(sorted(days.items()))})

    def totals(self) -> dict[str, int]:
        """Sessions per project over every day."""
        days = self._read()
        if days is None:
            with self.workspace.locked("project-tally"):
                days = self._read()
                if days is None:
                    days = self._count_observations()
                    if days:
                        self.workspace.write_json(self.path, {"days": days})
        total: Counter[str] = Counter()
        for sessions in days.values():
            total.update(sessions)
        return dict(total)

    def has_memories(self, project: str) -> bool:
        return self.totals().get(project, 0) > 0

    def _read(self) -> dict[str, dict[str, int]] | None:
        try:
            return dict(json.loads(self.path.read_text(encoding="utf-8")).get("days", {}))
        except (OSError, ValueError, AttributeError):
            return None

    def _count_observations(self) -> dict[str, dict[str, int]]:
        """The tally of a workspace written before it existed, from its observation files."""
        root, days = self.workspace.observations_root, {}
        for folder in sorted(root.iterdir()) if root.is_dir() else []:
            if not DAY_NAME.match(folder.name):
                continue
            found: Counter[str] = Counter()
            for path in folder.glob("*.json"):
                try:
                    found[Observation.model_validate_json(path.read_text(encoding="utf-8")).project or ""] += 1
                except (OSError, ValueError):
                    continue
            days[folder.name] = dict(found)
        return days


def has_memories(workspace: Workspace, project: str) -> bool:
    """`project` has sessions remembered or a recall pack of its own: the one test every reader
    (recall, brief, pack, the hooks) uses before scoping to a folder's project."""
    return ProjectTally(workspace).has_memories(project) or workspace.pack_path(project).is_file()


def scope_for(workspace: Workspace, asked: str | None, how: str, widen: str = "--all-projects",
              no_project: str = "this folder is in no project") -> LookedAt:
    """What a reader in `asked` (asked `how`: stages.projects.ASKED_*) looks at: the one scope rule
    (stages.projects.choose_scope) with this workspace's projects. Every door calls it: the CLI's
    recall, brief and pack, the hooks, the MCP tools. `no_project`: why `asked` is UNKNOWN, when it is."""
    if how == ASKED_ALL or asked is None:
        return choose_scope(None, ASKED_ALL, False, widen=widen)
    totals = ProjectTally(workspace).totals()
    mine = totals.get(asked, 0) > 0 or bool(asked) and workspace.pack_path(asked).is_file()
    others = [name for name, n in totals.items() if n and name and name != asked]
    return choose_scope(asked, how, mine, others, widen, no_project)
