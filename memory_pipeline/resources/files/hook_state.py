"""Hook state on disk: one JSON per session, the decision log, and reading a transcript's tail.

Each hook is its own short process, so what one learns (the context zone, the recall cache, the
checkpoint, when the last compaction happened) lives in `state/hooks/<session>.json`, changed
under a per-session lock, redacted and replaced atomically (user messages, queries and cached hits
are transcript text: a secret in them never reaches the disk). Decisions go to `state/hooks/telemetry.jsonl`,
one JSON line per decision, appended with a single O_APPEND write under a lock.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

from pydantic import ValidationError

from memory_pipeline.models import HookSessionState
from memory_pipeline.resources.workspace import FILE_MODE, Workspace, atomic_write_text, ensure_dir
from memory_pipeline.stages.events import check_session_id
from memory_pipeline.stages.redact import redact_value

TAIL_BYTES = 512 * 1024
TELEMETRY_FILE = "telemetry.jsonl"


def hooks_dir(workspace: Workspace) -> Path:
    return workspace.state_path("hooks")


class HookStateStore:
    def __init__(self, workspace: Workspace):
        self.workspace = workspace

    def path(self, session_id: str) -> Path:
        return hooks_dir(self.workspace) / f"{check_session_id(session_id)}.json"

    def load(self, session_id: str) -> HookSessionState:
        """The session's state; a missing or unreadable file is a fresh state."""
        path = self.path(session_id)
        try:
            return HookSessionState.model_validate_json(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValidationError, ValueError):
            return HookSessionState(session_id=session_id)

    def update(self, session_id: str, change: Callable[[HookSessionState], None], now: datetime) -> HookSessionState:
        """Read, change and replace the state under the session's lock; returns the new state."""
        with self.workspace.locked(f"hook-{check_session_id(session_id)}"):
            state = self.load(session_id)
            change(state)
            state.updated_at = now
            clean = HookSessionState.model_validate(redact_value(state.model_dump(mode="json")))
            atomic_write_text(self.path(session_id), clean.model_dump_json(indent=2) + "\n")
            return clean


def log_decision(workspace: Workspace, decision: str, *, at: datetime, session_id: str, hook: str, **details) -> None:
    """Append one decision line to the telemetry log."""
    record = {"at": at.isoformat(), "decision": decision, "session_id": session_id, "hook": hook,
              **redact_value(json.loads(json.dumps(details, default=str)))}
    line = (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode("utf-8")
    path = ensure_dir(hooks_dir(workspace)) / TELEMETRY_FILE
    with workspace.locked("hook-telemetry"):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)


def read_decisions(workspace: Workspace) -> Iterator[dict]:
    """Every well-formed decision line (a torn or foreign line is skipped)."""
    path = hooks_dir(workspace) / TELEMETRY_FILE
    if not path.is_file():
        return
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and isinstance(record.get("decision"), str):
                yield record


def read_tail(path: Path, max_bytes: int = TAIL_BYTES) -> tuple[str, bool]:
    """The last `max_bytes` of a file as text, and whether the read started mid-file."""
    with path.open("rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        start = max(0, size - max_bytes)
        handle.seek(start)
        data = handle.read()
    return data.decode("utf-8", errors="replace"), start > 0
