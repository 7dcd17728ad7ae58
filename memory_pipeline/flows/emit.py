"""Emitting a session event: parse the transcript, snapshot it (redacted), write the event file.

The transcript file keeps growing after the event, so the event points at a copy taken now.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import SessionEvent, Transcript, TranscriptRef, Trigger, content_hash
from memory_pipeline.resources.inbox import Inbox
from memory_pipeline.resources.workspace import Workspace, atomic_write_chunks, atomic_write_text
from memory_pipeline.stages.events import build_event, check_session_id

MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class EmitResult:
    event: SessionEvent | None
    path: Path | None
    skipped: str | None = None
    last_message_id: str | None = None  # the last message the event covers


def session_id_from(transcript: Transcript, path: Path) -> str:
    candidate = transcript.session_id or path.stem
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "-", candidate).strip(".-")[:128]
    return cleaned or "session"


def _window(transcript: Transcript, window: str) -> tuple[Transcript, str | None]:
    """`all`, `since-compaction`, or `after:<message id>` (what came after an earlier event)."""
    if window == "all":
        return transcript, None
    from memory_pipeline.stages.transcripts import messages_since_last_compaction

    if window.startswith("after:"):
        ids = [m.id for m in transcript.messages]
        last = window.removeprefix("after:")
        if last not in ids:
            return transcript, None
        messages = transcript.messages[ids.index(last) + 1:]
        if not messages:
            return transcript.model_copy(update={"messages": []}), None
        return transcript.model_copy(update={"messages": messages}), messages[0].id
    messages = messages_since_last_compaction(transcript)
    if not messages:
        return transcript, None
    return transcript.model_copy(update={"messages": messages}), messages[0].id


def event_project(given: str | None, transcript_cwd: str | None) -> str:
    """The event's project: a name given (`--project`), a folder given (a hook's cwd), else the
    transcript's own working folder."""
    from memory_pipeline.resources.projects import named_project, resolve_project

    return named_project(given) if given else resolve_project(transcript_cwd)


def snapshot_transcript(workspace: Workspace, path: Path, transcript: Transcript, session_id: str, key: str) -> TranscriptRef:
    """Copy the transcript into the workspace with secrets redacted; returns the event's reference."""
    from memory_pipeline.stages.redact import redact, redact_jsonl_lines

    suffix = ".txt" if transcript.format == "text" else ".jsonl"
    target = workspace.transcripts / session_id / f"{key}{suffix}"
    if transcript.format == "text":
        redacted = redact(path.read_text(encoding="utf-8", errors="replace"))
        atomic_write_text(target, redacted)
        sha256 = content_hash(redacted)
    else:  # line by line: a 60 MB session is never held whole
        with path.open(encoding="utf-8", errors="replace") as lines:
            sha256 = atomic_write_chunks(target, redact_jsonl_lines(lines))
    return TranscriptRef(path=workspace.relative(target), format=transcript.format, sha256=sha256)


def emit_session_event(
    workspace: Workspace,
    transcript_path: Path,
    *,
    trigger: Trigger,
    session_id: str | None = None,
    format: str = "auto",
    captured_at: datetime | None = None,
    window: str = "all",
    session_name: str | None = None,
    tokens_before: int = 0,
    force: bool = False,
    use_transcript_time: bool = False,
    project: str | None = None,
    parsed: Transcript | None = None,
) -> EmitResult:
    """Write one event file into the inbox. Raises BadInputError for unusable input.

    A session end under 5 user messages is emitted too: its messages are indexed, and the Observer
    skips it (`stages.events.observe_skip_reason`). `force` is kept for older callers; it changes nothing.
    `project` (a name, or a folder to resolve) defaults to the project of the transcript's own folder.
    `parsed` is the file already parsed (`import` reads it first): a 57 MB session is not held twice.
    """
    from memory_pipeline.stages.transcripts import parse_transcript

    path = Path(transcript_path).expanduser()
    if not path.is_file():
        raise BadInputError(f"transcript not found: {path}")
    resolved = path.resolve()
    if resolved == workspace.root or workspace.root in resolved.parents:
        raise BadInputError(f"{path} is inside the workspace ({workspace.root}); only transcripts from outside "
                            "it can be emitted (its own state and snapshots are never read as a session)")
    if path.stat().st_size > MAX_TRANSCRIPT_BYTES:
        raise BadInputError(f"transcript is {path.stat().st_size} bytes, over the {MAX_TRANSCRIPT_BYTES} limit")
    if session_id is not None:
        check_session_id(session_id)
    if parsed is None:
        transcript = parse_transcript(path, format=format, session_id=session_id)
    else:
        transcript = parsed.model_copy(update={"session_id": session_id}) if session_id else parsed
    if not transcript.messages:
        raise BadInputError(f"transcript has no messages: {path}")
    session_id = session_id or session_id_from(transcript, path)
    check_session_id(session_id)
    windowed, window_start = _window(transcript, window)
    if not windowed.messages:
        return EmitResult(None, None, skipped="no new messages since the last event of this session")
    captured = captured_at
    if captured is None and use_transcript_time and windowed.ended_at is not None:
        captured = windowed.ended_at.astimezone()  # imports land on the day the session happened
    captured = captured or datetime.now().astimezone()
    workspace.create()
    draft = build_event(windowed, trigger=trigger, session_id=session_id, captured_at=captured, messages="-")
    ref = snapshot_transcript(workspace, path, transcript, session_id, draft.data.dedupe_key)
    event = build_event(
        windowed,
        trigger=trigger,
        session_id=session_id,
        captured_at=captured,
        transcript_ref=ref,
        tokens_before=tokens_before,
        session_name=session_name,
    )
    event.data.window_start_id = window_start
    event.data.session_user_message_count = transcript.user_message_count
    event.data.project = event_project(project, transcript.cwd)
    return EmitResult(event, Inbox(workspace).write(event), last_message_id=windowed.messages[-1].id)
