"""Emitting a session event: parse the transcript, snapshot it (redacted), write the event file.

The transcript file keeps growing after the event, so the event points at a copy taken now.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError
from memory_pipeline.models import SessionEvent, Transcript, Trigger
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.files.snapshots import snapshot_transcript
from memory_pipeline.resources.projects import named_project, resolve_project
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.events import build_event, check_session_id
from memory_pipeline.stages.redact import redact
from memory_pipeline.stages.transcripts import parse_transcript
from memory_pipeline.stages.transcripts.lines import MAX_TRANSCRIPT_BYTES
from memory_pipeline.stages.windows import plan_window


@dataclass(frozen=True)
class EmitResult:
    event: SessionEvent | None
    path: Path | None
    skipped: str | None = None
    last_message_id: str | None = None  # the last message the event covers (to record as sent)
    first_new_id: str | None = None  # the first message no earlier event carried


def session_id_from(transcript: Transcript, path: Path) -> str:
    candidate = transcript.session_id or path.stem
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "-", candidate).strip(".-")[:128]
    return without_secret(cleaned or "session")


def without_secret(session_id: str) -> str:
    """A session id that holds a secret (a file named after a token, a forged `sessionId`) would name files,
    Redis keys, Dagster tags and snapshot folders: it is replaced by one made from its hash, the same each time."""
    if redact(session_id) == session_id:
        return session_id
    return f"session-{hashlib.sha256(session_id.encode()).hexdigest()[:16]}"


def event_project(given: str | None, transcript_cwd: str | None, settings: Settings) -> str:
    """The event's project: a name given (`--project`), a folder given (a hook's cwd), else the
    transcript's own working folder."""
    return named_project(given, settings) if given else resolve_project(transcript_cwd, settings)


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
    use_transcript_time: bool = False,
    project: str | None = None,
    parsed: Transcript | None = None,
    waiting_from: str | None = None,
    session_over: bool = True,
    stop_at_compaction: bool = False,
    settings: Settings,
) -> EmitResult:
    """Write one event file into the inbox. Raises BadInputError for unusable input.

    Every window is emitted and indexed; whether it is observed is decided here (`plan_window`): a
    window short of the work rule waits for the session's next window (`waiting_from` names the first
    message of that backlog) unless `session_over`.
    `project` (a name, or a folder to resolve) defaults to the project of the transcript's own folder.
    `parsed` is the file already parsed (`import` reads it first): a 57 MB session is not held twice.
    `settings` are the door's (MEMORY_PROJECT_MAP names the project).
    """
    path = Path(transcript_path).expanduser()
    if not path.is_file():
        raise BadInputError(f"transcript not found: {path}")
    resolved = path.resolve()
    if resolved == workspace.root or workspace.root in resolved.parents:
        raise BadInputError(f"{path} is inside the workspace ({workspace.root}); only transcripts from outside "
                            "it can be emitted (its own state and snapshots are never read as a session)")
    if session_id is not None:
        session_id = without_secret(check_session_id(session_id))
    if parsed is None:
        transcript = parse_transcript(path, format=format, session_id=session_id, max_bytes=MAX_TRANSCRIPT_BYTES)
    else:
        transcript = parsed.model_copy(update={"session_id": session_id}) if session_id else parsed
    if not transcript.messages:
        raise BadInputError(f"transcript has no messages: {path}")
    session_id = session_id or session_id_from(transcript, path)
    check_session_id(session_id)
    planned = plan_window(transcript, trigger, window, waiting_from, session_over, stop_at_compaction)
    if not planned.messages:
        return EmitResult(None, None, skipped="no new messages since the last event of this session",
                          last_message_id=planned.sent)
    windowed = transcript.model_copy(update={"messages": planned.messages})
    window_start = planned.messages[0].id if planned.messages[0].id != transcript.messages[0].id else None
    captured = captured_at
    if captured is None and use_transcript_time and windowed.ended_at is not None:
        captured = windowed.ended_at.astimezone()  # imports land on the day the session happened
    captured = captured or datetime.now().astimezone()
    workspace.create()
    draft = build_event(windowed, trigger=trigger, session_id=session_id, captured_at=captured, messages="-",
                        first_entry=planned.key_entry)
    ref = snapshot_transcript(workspace, path, transcript.format, session_id, draft.data.dedupe_key)
    event = build_event(
        windowed,
        trigger=trigger,
        session_id=session_id,
        captured_at=captured,
        transcript_ref=ref,
        tokens_before=tokens_before,
        session_name=session_name,
        first_entry=planned.key_entry,
    )
    event.data.window_start_id = window_start
    event.data.window_end_id = planned.messages[-1].id  # the snapshot may hold lines written since
    event.data.session_user_message_count = transcript.user_message_count
    event.data.project = event_project(project, transcript.cwd, settings)
    event.data.observing, event.data.work = planned.observing, planned.work
    event.data.cut = transcript.cut  # a transcript over its limits: what was not read
    return EmitResult(event, Inbox(workspace).write(event), last_message_id=planned.sent,
                      first_new_id=planned.first_new)
