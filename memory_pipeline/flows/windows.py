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

from memory_pipeline.flows.emit import EmitResult, emit_session_event
from memory_pipeline.models import HookSessionState, Transcript, Trigger
from memory_pipeline.resources.hook_state import HookStateStore
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.events import check_session_id

LOCK_SECONDS = 120.0  # a 60 MB session takes seconds to snapshot; a hook gives up after this


def window_lock(session_id: str) -> str:
    return f"window-{check_session_id(session_id)}"


def record_sent(state: HookSessionState, result: EmitResult, transcript_path: str | None) -> None:
    """Move the session's record past what the event carried (or found already sent)."""
    if transcript_path:
        state.transcript_path = transcript_path
    if result.last_message_id is None:
        return
    state.last_event_message_id = result.last_message_id
    event = result.event
    if event is None:
        return
    if event.data.observing == "waiting":
        state.waiting_from_id = state.waiting_from_id or result.first_new_id
    else:
        state.waiting_from_id = None


def send_window(workspace: Workspace, path: Path, *, session_id: str, trigger: Trigger, now: datetime | None = None,
                session_over: bool = False, stop_at_compaction: bool = False, tokens_before: int = 0,
                project: str | None = None, format: str = "auto", use_transcript_time: bool = False,
                parsed: Transcript | None = None) -> EmitResult:
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
            session_over=session_over, stop_at_compaction=stop_at_compaction,
        )
        recorded = str(Path(path).expanduser())
        store.update(session_id, lambda s: record_sent(s, result, recorded), now or datetime.now().astimezone())
    return result
