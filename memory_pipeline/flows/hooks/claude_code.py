"""Claude Code hooks: what each hook event does.

- PreCompact: event for the window about to be summarized + the task checkpoint.
- SessionEnd: `memory/session.ended` for what the session said since its last event. Fast: parse,
  redact, snapshot and write one file; the sensor does the heavy work later. Under 5 user messages
  the window is indexed, not observed.
- SessionStart: the briefing (startup, resume, clear) or the recovery pointer (compact).
- UserPromptSubmit: the context level (flows/hook_context.py).
Every decision is logged to state/hooks/telemetry.jsonl.
"""

from __future__ import annotations

from datetime import datetime

from memory_pipeline.errors import BadInputError
from memory_pipeline.flows.emit import emit_session_event
from memory_pipeline.flows.hooks.transcript import HookResult, parse_session, session_start_output, transcript_file
from memory_pipeline.models import HookPayload, TaskCheckpoint, Transcript
from memory_pipeline.resources.feedback import FeedbackFiles, record_injected
from memory_pipeline.resources.hook_state import HookStateStore, log_decision
from memory_pipeline.resources.memory_files import MemoryFiles
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.events import observe_skip_reason
from memory_pipeline.stages.hooks.context_level import context_percent, context_window_for
from memory_pipeline.stages.hooks.recovery import current_task, user_intents
from memory_pipeline.stages.redact import redact
from memory_pipeline.stages.review.memory_md import for_project, memory_items
from memory_pipeline.stages.transcripts import files_touched


def recent_files(transcript: Transcript, limit: int = 10) -> list[str]:
    """Modified files, the most recently touched first."""
    _, modified = files_touched(list(reversed(transcript.messages)))
    return modified[:limit]


def make_checkpoint(transcript: Transcript, reason: str, now: datetime, percent: float | None) -> TaskCheckpoint:
    intents = user_intents(transcript.messages)
    return TaskCheckpoint(
        current_task=current_task(intents),
        user_messages=intents[-3:],
        files_modified=recent_files(transcript),
        context_percent=percent,
        reason=reason,
        captured_at=now,
    )


def last_context_tokens(transcript: Transcript) -> int:
    return next((m.context_tokens for m in reversed(transcript.messages) if m.context_tokens), 0)


def before_compaction(workspace: Workspace, payload: HookPayload, now: datetime) -> HookResult:
    path = transcript_file(payload)
    transcript = parse_session(path, payload.session_id)
    tokens = last_context_tokens(transcript)
    result = emit_session_event(
        workspace, path, trigger="compaction", session_id=payload.session_id, format="claude-code",
        window="since-compaction", tokens_before=tokens, captured_at=now, project=payload.cwd,
    )
    event = result.event
    store = HookStateStore(workspace)
    window = store.load(payload.session_id).context_window or context_window_for(None)
    checkpoint = make_checkpoint(transcript, "pre-compact", now, context_percent(tokens, window))

    def change(state) -> None:
        state.checkpoint = checkpoint
        state.compactions_emitted += 1
        state.last_event_message_id = result.last_message_id

    store.update(payload.session_id, change, now)
    log = dict(at=now, session_id=payload.session_id, hook="PreCompact")
    log_decision(workspace, "emitted", event=event.name, dedupe_key=event.data.dedupe_key,
                 window_start_id=event.data.window_start_id, messages=event.data.message_count,
                 trigger=payload.trigger, **log)
    log_decision(workspace, "checkpoint", reason="pre-compact", files=len(checkpoint.files_modified), **log)
    return HookResult()


def session_ended(workspace: Workspace, payload: HookPayload, now: datetime) -> HookResult:
    files = FeedbackFiles(workspace)
    if any(not item.get("settled") for item in files.injected(payload.session_id)):
        files.enqueue_answer(payload.session_id, "", now, final=True)  # what was never used: ignored
    path = transcript_file(payload)
    store = HookStateStore(workspace)
    state = store.load(payload.session_id)
    # earlier windows went out with PreCompact or an earlier SessionEnd (a resumed session):
    # this event covers only what came after them, so nothing is observed twice
    if state.last_event_message_id:
        window = f"after:{state.last_event_message_id}"
    else:
        window = "since-compaction" if state.compactions_emitted else "all"
    result = emit_session_event(
        workspace, path, trigger="shutdown", session_id=payload.session_id, format="claude-code",
        window=window, captured_at=now, project=payload.cwd,
    )
    if result.event is not None:
        store.update(payload.session_id, lambda s: setattr(s, "last_event_message_id", result.last_message_id), now)
    log = dict(at=now, session_id=payload.session_id, hook="SessionEnd", reason=payload.reason)
    if result.event is None:
        log_decision(workspace, "skipped", why=result.skipped, **log)
        return HookResult(note=f"no event: {result.skipped}")
    skip = observe_skip_reason(result.event)
    log_decision(workspace, "emitted", event=result.event.name, dedupe_key=result.event.data.dedupe_key,
                 window=window, messages=result.event.data.message_count, observed=skip is None, **log)
    return HookResult(note=skip)


def session_started(workspace: Workspace, payload: HookPayload, now: datetime) -> HookResult:
    if payload.source == "compact":
        from memory_pipeline.flows.hooks.context import recover_after_compaction

        return recover_after_compaction(workspace, payload, now)
    from memory_pipeline.flows.hooks.memory import hook_scope, session_briefing

    looked = hook_scope(workspace, payload.cwd)
    project = looked.project
    briefing = session_briefing(workspace, project=project, scope=looked.why)
    log = dict(at=now, session_id=payload.session_id, hook="SessionStart", source=payload.source)
    if briefing.text is None:
        log_decision(workspace, "inject_skipped", reason="no-briefing", detail=briefing.note, **log)
        return HookResult(note=briefing.note)
    output = session_start_output(briefing.text)
    log_decision(workspace, "inject", kind="briefing",
                 chars=len(output["hookSpecificOutput"]["additionalContext"]), **log)
    given = memory_items(for_project(MemoryFiles(workspace).read_memory(), project))
    record_injected(workspace, payload.session_id, given, "briefing", now)
    return HookResult(output=output)


def answered(workspace: Workspace, payload: HookPayload, now: datetime) -> HookResult:
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


def prompt_submitted(workspace: Workspace, payload: HookPayload, now: datetime) -> HookResult:
    from memory_pipeline.flows.hooks.context import track_context

    return track_context(workspace, payload, now)


HANDLERS = {
    "PreCompact": before_compaction,
    "SessionEnd": session_ended,
    "SessionStart": session_started,
    "UserPromptSubmit": prompt_submitted,
    "Stop": answered,
}


def run_claude_code_hook(workspace: Workspace, payload: HookPayload, *, now: datetime | None = None) -> HookResult:
    """Act on one hook call. Raises BadInputError for unusable input (the CLI turns it into a note)."""
    return HANDLERS[payload.hook_event_name](workspace, payload, now or datetime.now().astimezone())

