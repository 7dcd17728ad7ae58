"""Session events: building them from a transcript, and validating event files.

An event file is `{"name": "memory/session.ended", "data": {...}}` with the seed's fields.
Validation turns any bad file into a BadInputError with a one-line reason.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime

from pydantic import ValidationError

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import (
    EVENT_NAMES,
    SCHEMA_VERSION,
    EventData,
    SessionEvent,
    Transcript,
    TranscriptRef,
    Trigger,
    WindowWork,
)
from memory_pipeline.stages.redact import redact
from memory_pipeline.stages.transcripts.files import files_touched
from memory_pipeline.stages.untrusted import project_name
from memory_pipeline.stages.windows import RULE, describe

# The rule for events written before stages/windows.py judged windows by their work: observing
# from 5 user messages on; a shorter session's event is indexed only ("indexed, not observed").
MIN_USER_MESSAGES_TO_OBSERVE = 5
MIN_USER_MESSAGES_FOR_SHUTDOWN = MIN_USER_MESSAGES_TO_OBSERVE  # the old name, for code written against it
NOT_OBSERVED = "indexed, not observed"
MAX_EVENT_BYTES = 64 * 1024 * 1024
MAX_JSON_DEPTH = 64
_SAFE_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def check_session_id(session_id: str) -> str:
    """Session ids become file names and Redis keys: refuse traversal and odd characters."""
    if not isinstance(session_id, str) or not _SAFE_SESSION_ID.match(session_id) or ".." in session_id:
        raise BadInputError(
            f"unsafe sessionId {session_id!r}: use 1-128 letters, digits, '.', '_' or '-' (no slashes, no '..')"
        )
    return session_id


def make_dedupe_key(session_id: str, trigger: str, first_entry_timestamp: str) -> str:
    """sha256(sessionId + trigger + firstEntryTimestamp): one key per session × trigger × window."""
    return hashlib.sha256(f"{session_id}{trigger}{first_entry_timestamp}".encode()).hexdigest()


def build_event(
    transcript: Transcript,
    *,
    trigger: Trigger,
    session_id: str,
    captured_at: datetime,
    transcript_ref: TranscriptRef | None = None,
    messages: str | None = None,
    tokens_before: int = 0,
    session_name: str | None = None,
    first_entry: str | None = None,
) -> SessionEvent:
    """`first_entry` names the window in the dedupe key when its first message does not (a window
    that carries an earlier, waiting one starts where that one did)."""
    check_session_id(session_id)
    if transcript_ref is None and messages is None:
        raise BadInputError("an event needs the transcript: a snapshot reference or inline messages")
    started, ended = transcript.started_at, transcript.ended_at
    if first_entry is None:
        first_entry = started.isoformat() if started else (transcript.messages[0].id if transcript.messages else "")
    duration = (ended - started).total_seconds() if started and ended else None
    files_read, files_modified = files_touched(transcript.messages)  # the window's, not the whole file's
    files_read, files_modified = [redact(p) for p in files_read], [redact(p) for p in files_modified]
    data = EventData(
        session_id=session_id,
        dedupe_key=make_dedupe_key(session_id, trigger, first_entry),
        trigger=trigger,
        message_count=len(transcript.messages),
        user_message_count=transcript.user_message_count,
        tokens_before=tokens_before,
        files_read=files_read,
        files_modified=files_modified,
        captured_at=captured_at,
        schema_version=SCHEMA_VERSION,
        session_name=redact(session_name or transcript.title or "") or None,
        duration=max(duration, 0.0) if duration is not None else None,
        messages=messages,
        transcript=transcript_ref,
    )
    return SessionEvent(name=EVENT_NAMES[trigger], data=data)


def observe_skip_reason(event: SessionEvent) -> str | None:
    """Why the Observer skips this event, or None. Events carry the decision made when they were
    written (stages/windows.py: the work in the window); older events fall back to the old rule (a
    session end under 5 user messages, counted over the whole session). A compaction window is
    always observed: the context it summarizes is about to be lost."""
    data = event.data
    if data.observing == "waiting":
        return (f"{NOT_OBSERVED} yet: {describe(data.work or WindowWork())} wait to be observed with the "
                "session's next window")
    if data.observing == "skipped":
        return f"{NOT_OBSERVED}: {describe(data.work or WindowWork())} when the session ended (observing needs {RULE})"
    if data.observing == "observed":
        return None
    count = data.session_user_message_count
    if count is None:
        count = data.user_message_count
    if data.trigger == "shutdown" and count < MIN_USER_MESSAGES_TO_OBSERVE:
        return f"{NOT_OBSERVED}: {count} user message{'s' if count != 1 else ''} (observing needs {MIN_USER_MESSAGES_TO_OBSERVE})"
    return None


def event_to_json(event: SessionEvent) -> str:
    return event.model_dump_json(by_alias=True, exclude_none=True, indent=2) + "\n"


def _depth(value: object, limit: int) -> int:
    stack = [(value, 1)]
    deepest = 0
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def _describe_validation(error: ValidationError) -> str:
    parts = []
    for item in error.errors()[:3]:
        where = ".".join(str(p) for p in item["loc"]) or "event"
        parts.append(f"{where}: {item['msg']}")
    more = f" (+{error.error_count() - 3} more)" if error.error_count() > 3 else ""
    return "; ".join(parts) + more


def parse_event(raw: bytes) -> SessionEvent:
    """Validate the bytes of one event file. Raises BadInputError with a one-line reason."""
    if len(raw) > MAX_EVENT_BYTES:
        raise BadInputError(f"event file is {len(raw)} bytes, over the {MAX_EVENT_BYTES} byte limit")
    if not raw.strip():
        raise BadInputError("event file is empty")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInputError(f"event file is not UTF-8 text (byte {exc.start})") from None
    try:
        document = json.loads(text)
    except RecursionError:
        raise BadInputError("event JSON is nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise BadInputError(f"event file is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(document, dict):
        raise BadInputError("event file must hold a JSON object")
    if _depth(document, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        raise BadInputError("event JSON is nested too deeply")
    name, data = document.get("name"), document.get("data")
    if name not in EVENT_NAMES.values():
        raise BadInputError(f"unknown event name {name!r}; expected one of {sorted(EVENT_NAMES.values())}")
    if not isinstance(data, dict):
        raise BadInputError("event has no 'data' object")
    version = data.get("schemaVersion")
    if version != SCHEMA_VERSION:
        raise BadInputError(f"unsupported schemaVersion {version!r}; this version reads {SCHEMA_VERSION}")
    check_session_id(data.get("sessionId"))  # type: ignore[arg-type]
    try:
        event = SessionEvent(name=name, data=EventData.model_validate(data))
    except ValidationError as exc:
        raise BadInputError(f"event fields invalid: {_describe_validation(exc)}") from None
    if EVENT_NAMES[event.data.trigger] != event.name:
        raise BadInputError(f"trigger {event.data.trigger!r} does not match event {event.name!r}")
    if not re.fullmatch(r"[A-Za-z0-9_-]{8,128}", event.data.dedupe_key):
        raise BadInputError("dedupeKey must be 8-128 letters, digits, '_' or '-'")
    if event.data.transcript is None and not event.data.messages:
        raise BadInputError("event carries no transcript: neither 'messages' nor 'transcript'")
    if event.data.project is not None and event.data.project != project_name(event.data.project):
        raise BadInputError(f"project {event.data.project[:80]!r} is not a project name (one line of letters, "
                            "digits, '.', '_', '-', '+', '@' or spaces)")
    if event.data.captured_at.tzinfo is None:
        raise BadInputError("capturedAt needs a time zone offset (ISO 8601, e.g. 2026-02-15T09:15:00+00:00)")
    return without_secrets(event)


def without_secrets(event: SessionEvent) -> SessionEvent:
    """An event written by another tool, its name and file paths redacted as `build_event` redacts its own
    (they name the daily log's headings, the Observer's prompt and Dagster's metadata)."""
    data = event.data
    data.session_name = redact(data.session_name) if data.session_name else data.session_name
    data.files_read = [redact(p) for p in data.files_read]
    data.files_modified = [redact(p) for p in data.files_modified]
    return event
