"""Claude Code hooks: what each hook event does.

- PreCompact: the task checkpoint (indexed for search by a detached process); the compaction is
  noted as pending (the client may abandon it).
- SessionEnd: `memory/session.ended` for what the session said since its last window (flows/intake/windows.py).
  Fast: parse, redact, snapshot and write one file; the sensor does the heavy work later. A window
  short of the work rule (stages/windows.py) waits to be observed with the next one.
- SessionStart: the briefing (startup, resume, clear), or (compact) the compaction's event for the
  window it summarized, then the recovery pointer.
- UserPromptSubmit: the context level (flows/hooks/context.py); and the briefing, for a session whose
  SessionStart was answered without it (hook_entry: no service ran, the folder was never briefed).
Every decision is logged to state/hooks/telemetry.jsonl.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

from memory_pipeline import hook_entry
from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError
from memory_pipeline.flows.hooks.checkpoint_index import folder_project, spawn_checkpoint_index
from memory_pipeline.flows.hooks.transcript import (
    MAX_CONTEXT_CHARS,
    HookResult,
    parse_session,
    session_start_output,
    transcript_file,
)
from memory_pipeline.flows.intake.emit import EmitResult
from memory_pipeline.flows.intake.windows import send_window
from memory_pipeline.models import HookPayload, PendingCompaction, TaskCheckpoint, Transcript
from memory_pipeline.resources.files.feedback import FeedbackFiles, record_injected
from memory_pipeline.resources.files.hook_state import HookStateStore, log_decision
from memory_pipeline.resources.files.memory_files import MemoryFiles
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.events import observe_skip_reason
from memory_pipeline.stages.hooks.context_level import (
    context_percent,
    context_window_for,
    window_shown_by_auto_compaction,
)
from memory_pipeline.stages.hooks.recovery import current_task, user_intents
from memory_pipeline.stages.redact import redact
from memory_pipeline.stages.review.memory_md import for_project, memory_items
from memory_pipeline.stages.transcripts import files_touched
from memory_pipeline.stages.untrusted import working_folder
from memory_pipeline.stages.windows import FINAL_END_REASONS


def recent_files(transcript: Transcript, limit: int = 10) -> list[str]:
    """Modified files, the most recently touched first."""
    _, modified = files_touched(list(reversed(transcript.messages)))
    return modified[:limit]


def make_checkpoint(transcript: Transcript, reason: str, now: datetime, percent: float | None,
                    project: str = "") -> TaskCheckpoint:
    intents = user_intents(transcript.messages)
    return TaskCheckpoint(
        current_task=current_task(intents),
        user_messages=intents[-3:],
        files_modified=recent_files(transcript),
        context_percent=percent,
        reason=reason,
        captured_at=now,
        project=project,
    )


def last_context_tokens(transcript: Transcript) -> int:
    return next((m.context_tokens for m in reversed(transcript.messages) if m.context_tokens), 0)


def before_compaction(workspace: Workspace, payload: HookPayload, now: datetime, settings: Settings) -> HookResult:
    """The checkpoint now; the compaction's event once the compaction shows in the transcript
    (SessionStart with source compact): the client may still abandon it, and then nothing is sent."""
    from memory_pipeline.flows.hooks.context import configured_window

    path = transcript_file(payload)
    transcript = parse_session(path, payload.session_id)
    tokens = last_context_tokens(transcript)
    store = HookStateStore(workspace)
    state = store.load(payload.session_id)
    shown = window_shown_by_auto_compaction(tokens) if payload.trigger == "auto" and tokens else state.shown_window
    window = context_window_for(None, configured_window(settings), payload.context_window or shown or state.context_window)
    checkpoint = make_checkpoint(transcript, "pre-compact", now, context_percent(tokens, window),
                                 folder_project(payload.cwd or transcript.cwd, settings))

    def change(state) -> None:
        state.shown_window = shown
        state.checkpoint = checkpoint
        state.transcript_path = str(path)
        state.pending_compaction = PendingCompaction(trigger=payload.trigger, tokens_before=tokens, at=now)

    store.update(payload.session_id, change, now)
    log_decision(workspace, "checkpoint", reason="pre-compact", files=len(checkpoint.files_modified),
                 trigger=payload.trigger, at=now, session_id=payload.session_id, hook="PreCompact")
    spawn_checkpoint_index(payload.session_id)  # made searchable after this hook
    return HookResult()


def compaction_done(workspace: Workspace, payload: HookPayload, now: datetime, settings: Settings) -> None:
    """SessionStart(compact): the compaction happened; send the window it summarized."""
    store = HookStateStore(workspace)
    pending = store.load(payload.session_id).pending_compaction
    log: dict[str, Any] = dict(at=now, session_id=payload.session_id, hook="SessionStart", source="compact")
    try:
        result = send_window(workspace, transcript_file(payload), session_id=payload.session_id, trigger="compaction",
                             now=now, stop_at_compaction=True, format="claude-code",
                             project=working_folder(payload.cwd), settings=settings,
                             tokens_before=pending.tokens_before if pending else 0)
    except BadInputError as exc:
        log_decision(workspace, "skipped", why=str(exc), **log)
        return
    finally:
        store.update(payload.session_id, lambda s: setattr(s, "pending_compaction", None), now)
    log_window(workspace, result, trigger=pending.trigger if pending else None, **log)


def log_window(workspace: Workspace, result: EmitResult, **log) -> None:
    if result.event is None:
        log_decision(workspace, "skipped", why=result.skipped, **log)
        return
    data = result.event.data
    log_decision(workspace, "emitted", event=result.event.name, dedupe_key=data.dedupe_key,
                 window_start_id=data.window_start_id, messages=data.message_count, observing=data.observing, **log)


def session_ended(workspace: Workspace, payload: HookPayload, now: datetime, settings: Settings) -> HookResult:
    owed_mark(workspace, payload.session_id).unlink(missing_ok=True)  # a session that ended before a prompt
    files = FeedbackFiles(workspace)
    if any(not item.get("settled") for item in files.injected(payload.session_id)):
        files.enqueue_answer(payload.session_id, "", now, final=True)  # what was never used: ignored
    path = transcript_file(payload)
    store = HookStateStore(workspace)
    log: dict[str, Any] = dict(at=now, session_id=payload.session_id, hook="SessionEnd", reason=payload.reason)
    if store.load(payload.session_id).pending_compaction is not None:  # PreCompact, then no compaction
        store.update(payload.session_id, lambda s: setattr(s, "pending_compaction", None), now)
        log_decision(workspace, "compaction_abandoned", **log)
    result = send_window(workspace, path, session_id=payload.session_id, trigger="shutdown", now=now,
                         session_over=payload.reason in FINAL_END_REASONS, format="claude-code",
                         project=working_folder(payload.cwd), settings=settings)
    log_window(workspace, result, **log)
    if result.event is None:
        return HookResult(note=f"no event: {result.skipped}")
    return HookResult(note=observe_skip_reason(result.event))


def session_started(workspace: Workspace, payload: HookPayload, now: datetime, settings: Settings) -> HookResult:
    if payload.source == "compact":
        from memory_pipeline.flows.hooks.context import recover_after_compaction

        compaction_done(workspace, payload, now, settings)
        return recover_after_compaction(workspace, payload, now, settings)
    return briefed(workspace, payload, now, settings, "SessionStart")


def briefed(workspace: Workspace, payload: HookPayload, now: datetime, settings: Settings, event: str) -> HookResult:
    """The session's briefing as `event`'s context: SessionStart's, or the first prompt's of a session
    owed it (hook_entry.owe_briefing: its start was answered while no service ran, without waiting)."""
    from memory_pipeline.flows.hooks.memory import hook_scope, session_briefing
    from memory_pipeline.flows.status import memory_footer

    looked = hook_scope(workspace, payload.cwd, settings)
    project = looked.project
    briefing = session_briefing(workspace, project=project, scope=looked.why, max_chars=MAX_CONTEXT_CHARS,
                                footer=memory_footer(workspace, settings))
    log: dict[str, Any] = dict(at=now, session_id=payload.session_id, hook=event, source=payload.source)
    if briefing.text is None:
        log_decision(workspace, "inject_skipped", reason="no-briefing", detail=briefing.note, **log)
        return HookResult(note=briefing.note)
    output = session_start_output(briefing.text, event)
    log_decision(workspace, "inject", kind="briefing",
                 chars=len(output["hookSpecificOutput"]["additionalContext"]), **log)
    given = memory_items(for_project(MemoryFiles(workspace).read_memory(), project))
    record_injected(workspace, payload.session_id, given, "briefing", now)
    return HookResult(output=output)


def owed_mark(workspace: Workspace, session_id: str) -> Path:
    return Path(hook_entry.owed_path(os.path.realpath(workspace.root), session_id))


def answered(workspace: Workspace, payload: HookPayload, now: datetime, settings: Settings) -> HookResult:
    """Stop: queue the answer for echo/fizzle when the session was given memories (judged later)."""
    files = FeedbackFiles(workspace)
    if not any(not item.get("settled") for item in files.injected(payload.session_id)):
        return HookResult()
    text = payload.last_assistant_message
    if text is None and payload.transcript_path:
        try:
            transcript = parse_session(transcript_file(payload), payload.session_id)
            text = next((m.text for m in reversed(transcript.messages) if m.role == "assistant" and m.text), None)
        except (BadInputError, OSError):
            text = None
    if not text:
        return HookResult(note="no answer to judge: the Stop input has no last_assistant_message")
    files.enqueue_answer(payload.session_id, redact(text), now)
    log_decision(workspace, "feedback_queued", at=now, session_id=payload.session_id, hook="Stop", chars=len(text))
    return HookResult()


def prompt_submitted(workspace: Workspace, payload: HookPayload, now: datetime, settings: Settings) -> HookResult:
    from memory_pipeline.flows.hooks.context import track_context

    tracked = track_context(workspace, payload, now, settings)
    mark = owed_mark(workspace, payload.session_id)
    if not mark.exists():
        return tracked
    mark.unlink(missing_ok=True)  # the first prompt of a session whose start was answered without its briefing
    owed = briefed(workspace, payload, now, settings, "UserPromptSubmit")
    return owed if owed.output else tracked


HANDLERS = {
    "PreCompact": before_compaction,
    "SessionEnd": session_ended,
    "SessionStart": session_started,
    "UserPromptSubmit": prompt_submitted,
    "Stop": answered,
}


def run_claude_code_hook(workspace: Workspace, payload: HookPayload, *, settings: Settings,
                         now: datetime | None = None) -> HookResult:
    """Act on one hook call. Raises BadInputError for unusable input (the CLI turns it into a note).
    `settings` are the door's (the hook command's or the hook service's)."""
    return HANDLERS[payload.hook_event_name](workspace, payload, now or datetime.now().astimezone(), settings)

