"""The task checkpoint as a search document (pure): one point per session in the "messages" tier.

The hot zone and PreCompact save what the session was doing (models.TaskCheckpoint); indexed, a
parallel session or the next one after a crash finds it with `recall` or the MCP `search` tool. Its id
is stable per session, so the next checkpoint replaces it. Its text holds the user's own words (the
task, the last requests) and the files the session changed, never tool output, redacted again here;
`kind: checkpoint` tells it from a message, and it has no role, so recall shows it without a speaker
and a question about one speaker's words does not set it back.
"""

from __future__ import annotations

from datetime import datetime

from memory_pipeline.models import TaskCheckpoint, stable_id
from memory_pipeline.stages.index.message_docs import MAX_MESSAGE_CHARS, MessageDoc, format_day
from memory_pipeline.stages.redact import redact
from memory_pipeline.stages.untrusted import one_line

KIND = "checkpoint"
REQUEST_CHARS = 300
FILES_SHOWN = 10
REASONS = {"hot-zone": "in the hot zone", "pre-compact": "before a compaction"}


def checkpoint_id(session_id: str) -> str:
    """The one point of a session's checkpoint: the next checkpoint of the session replaces it."""
    return stable_id(session_id, KIND)


def _clip(text: str, limit: int) -> str:
    text = one_line(text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _requests(checkpoint: TaskCheckpoint) -> list[str]:
    return [_clip(m, REQUEST_CHARS) for m in checkpoint.user_messages if one_line(m)]


def short_name(path: str) -> str:
    """A file by its last two parts ("lib/parser.py"): what a search matches, without the user's folders."""
    return "/".join(path.rstrip("/").split("/")[-2:])


def checkpoint_message(checkpoint: TaskCheckpoint) -> str:
    """What a reader sees: "Task in progress: …; the user's last requests: "…" · "…"; files: … (…)"."""
    parts = [f"Task in progress: {_clip(checkpoint.current_task, REQUEST_CHARS) or '(not said)'}"]
    if requests := _requests(checkpoint):
        parts.append("the user's last requests: " + " · ".join(f'"{r}"' for r in requests))
    if checkpoint.files_modified:
        parts.append("files: " + ", ".join(checkpoint.files_modified[:FILES_SHOWN]))
    when = checkpoint.captured_at
    about = [f"checkpoint {REASONS.get(checkpoint.reason, checkpoint.reason)}", f"{when:%Y-%m-%d %H:%M}"]
    if checkpoint.context_percent is not None:
        about.append(f"{checkpoint.context_percent:g} % of the context")
    return redact("; ".join(parts) + f" ({', '.join(about)})")[:MAX_MESSAGE_CHARS]


def searched_text(checkpoint: TaskCheckpoint) -> str:
    """What is embedded and matched: the date, the task and the requests in the user's words, the files by
    their short names (whole paths and the checkpoint's figures only dilute the meaning)."""
    words = [f"[{format_day(checkpoint.captured_at)}] Task in progress: {_clip(checkpoint.current_task, REQUEST_CHARS)}"]
    words += _requests(checkpoint)
    if checkpoint.files_modified:
        words.append("Files: " + ", ".join(short_name(f) for f in checkpoint.files_modified[:FILES_SHOWN]))
    return redact(". ".join(words))[:MAX_MESSAGE_CHARS]


def checkpoint_document(checkpoint: TaskCheckpoint, session_id: str, project: str) -> MessageDoc | None:
    """The checkpoint's point (id, embedded text, payload); None for one with nothing to find it by."""
    if not one_line(checkpoint.current_task) and not checkpoint.files_modified and not checkpoint.user_messages:
        return None
    when: datetime = checkpoint.captured_at
    message = checkpoint_message(checkpoint)
    payload = {
        "tier": "messages",
        "kind": KIND,
        "date": when.date().isoformat(),
        "session_id": session_id,
        "project": project,
        "scope": "project",
        "provenance": "user",  # the user's words (and the files the session changed), no tool output
        "message": message,
        "source_message_ids": [],
        "time": when.strftime("%H:%M"),
        "created_at": when.isoformat(),
        "created_ts": when.timestamp(),
        "priority": None,
        "stale": False,
        "reason": checkpoint.reason,
    }
    return MessageDoc(id=checkpoint_id(session_id), text=searched_text(checkpoint), payload=payload)
