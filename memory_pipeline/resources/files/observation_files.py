"""The files of sessions and observations in the workspace: `sessions/<day>/<key>.json` (a parsed,
redacted transcript window), `observations/<day>/<key>.json` and the `.not-observed` marks, beside
the ledger's (ledger_files.py) and MEMORY.md's (memory_files.py)."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.models import Observation, SessionEvent, Transcript
from memory_pipeline.resources.workspace import Workspace


def sessions_path(workspace: Workspace, day: str, key: str) -> Path:
    return workspace.sessions_dir(day) / f"{key}.json"


def observation_path(workspace: Workspace, day: str, key: str) -> Path:
    return workspace.observations_dir(day) / f"{key}.json"


def not_observed_path(workspace: Workspace, day: str, key: str) -> Path:
    """Marks an event the Observer skipped on purpose (a short session: indexed, not observed)."""
    return workspace.observations_dir(day) / f"{key}.not-observed"


def load_session(workspace: Workspace, day: str, event: SessionEvent) -> Transcript | None:
    path = sessions_path(workspace, day, event.data.dedupe_key)
    if not path.exists():
        return None
    return Transcript.model_validate_json(path.read_text(encoding="utf-8"))


def load_observations(workspace: Workspace, day: str) -> list[Observation]:
    folder = workspace.observations_dir(day)
    if not folder.is_dir():
        return []
    found = [Observation.model_validate_json(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
    return sorted(found, key=lambda o: (o.captured_at, o.dedupe_key))


def load_observation(path: Path) -> Observation | None:
    try:
        return Observation.model_validate_json(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None
