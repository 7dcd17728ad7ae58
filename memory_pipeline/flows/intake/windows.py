"""Sending a session's next window: one record per session of what was already sent.

PreCompact (once the compaction shows), SessionEnd, `import` and the idle sweep all send through
`send_window`, under the session's window lock: the record (`state/hooks/<session>.json`:
`last_event_message_id`, `waiting_from_id`) is read, the window after it emitted and the record
moved on before the lock is released, so two hooks racing on one session never carry the same
messages (the second finds nothing new) and windows are disjoint whichever hook sent them.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError
from memory_pipeline.flows.intake.emit import EmitResult, emit_session_event
from memory_pipeline.models import HookSessionState, Transcript, Trigger
from memory_pipeline.resources.files.hook_state import HookStateStore, hooks_dir, log_decision
from memory_pipeline.resources.workspace import Workspace, atomic_write_text
from memory_pipeline.stages.events import check_session_id
from memory_pipeline.stages.windows import is_idle

WAITING_SUFFIX = ".waiting"
LOCK_SECONDS = 120.0  # a 60 MB session takes seconds to snapshot; a hook gives up after this


def window_lock(session_id: str) -> str:
    return f"window-{check_session_id(session_id)}"


def record_sent(state: HookSessionState, result: EmitResult, transcript_path: str | None, session_over: bool) -> None:
    """Move the session's record past what the event carried (or found already sent). When the
    session is over nothing waits any more: what was not observed then stays indexed only."""
    if transcript_path:
        state.transcript_path = transcript_path
    if result.last_message_id is not None:
        state.last_event_message_id = result.last_message_id
    event = result.event
    if event is not None and event.data.observing == "waiting":
        state.waiting_from_id = state.waiting_from_id or result.first_new_id
    elif event is not None or session_over:
        state.waiting_from_id = None


def send_window(workspace: Workspace, path: Path, *, session_id: str, trigger: Trigger, now: datetime | None = None,
                session_over: bool = False, stop_at_compaction: bool = False, tokens_before: int = 0,
                project: str | None = None, format: str = "auto", use_transcript_time: bool = False,
                parsed: Transcript | None = None, settings: Settings) -> EmitResult:
    """Emit what the session said since its last window (BadInputError for unusable input)."""
    store = HookStateStore(workspace)
    workspace.create()
    with workspace.locked(window_lock(session_id), timeout=LOCK_SECONDS):
        state = store.load(session_id)
        after = state.last_event_message_id
        result = emit_session_event(
            workspace, path, trigger=trigger, session_id=session_id, format=format, captured_at=now,
            window=f"after:{after}" if after else "all", tokens_before=tokens_before, project=project,
            use_transcript_time=use_transcript_time, parsed=parsed, waiting_from=state.waiting_from_id,
            session_over=session_over, stop_at_compaction=stop_at_compaction, settings=settings,
        )
        recorded = str(Path(path).expanduser())
        state = store.update(session_id, lambda s: record_sent(s, result, recorded, session_over),
                             now or datetime.now().astimezone())
        mark_waiting(workspace, session_id, state.waiting_from_id is not None)
    return result


def waiting_marker(workspace: Workspace, session_id: str) -> Path:
    return hooks_dir(workspace) / f"{check_session_id(session_id)}{WAITING_SUFFIX}"


def mark_waiting(workspace: Workspace, session_id: str, waiting: bool) -> None:
    """A marker beside the session's state while a window waits: the sweep reads only those."""
    marker = waiting_marker(workspace, session_id)
    if waiting:
        atomic_write_text(marker, "")
    else:
        marker.unlink(missing_ok=True)


def close_idle_sessions(workspace: Workspace, now: datetime | None = None, *,
                        settings: Settings) -> list[EmitResult]:
    """Send the waiting window of every session idle for SESSION_IDLE, as the session's end: it is
    observed when the session showed work, else it stays indexed only. `ingest` and the inbox sensor
    run this before they take the inbox. A transcript that is gone leaves its window indexed only."""
    now = now or datetime.now().astimezone()
    store, sent = HookStateStore(workspace), []
    folder = hooks_dir(workspace)
    for marker in sorted(folder.glob(f"*{WAITING_SUFFIX}")) if folder.is_dir() else []:
        session_id = marker.name.removesuffix(WAITING_SUFFIX)
        state = store.load(session_id)
        if not is_idle(state.updated_at, now):
            continue
        path = Path(state.transcript_path or "")
        try:
            sent.append(send_window(workspace, path, session_id=session_id, trigger="shutdown", now=now,
                                    session_over=True, settings=settings))
        except BadInputError as exc:
            store.update(session_id, lambda s: setattr(s, "waiting_from_id", None), now)
            mark_waiting(workspace, session_id, False)
            log_decision(workspace, "skipped", at=now, session_id=session_id, hook="sweep", why=str(exc))
    return sent
