"""Tell a transcript's format from its first lines."""

from __future__ import annotations

from itertools import islice

from memory_pipeline.models import TranscriptFormat
from memory_pipeline.stages.transcripts.jsonl import json_objects

CLAUDE_CODE_TYPES = {
    "user", "assistant", "system", "progress", "summary", "file-history-snapshot", "queue-operation", "custom-title",
}
CLAUDE_CODE_KEYS = {"uuid", "sessionId", "leafUuid", "messageId"}
PI_TYPES = {
    "message", "compaction", "model_change", "thinking_level_change", "branch_summary", "custom", "custom_message",
    "label", "session_info",
}
CODEX_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
HEAD_OBJECTS = 50


def detect_format(text_head: str) -> TranscriptFormat:
    """claude-code, pi or codex from the JSON lines at the start of a file; anything else is text."""
    for position, (_, line) in enumerate(islice(json_objects(text_head), HEAD_OBJECTS)):
        kind = line.get("type")
        if not isinstance(kind, str):
            continue
        if kind == "session" and (position == 0 or "cwd" in line):
            return "pi"
        if kind in CODEX_TYPES and "payload" in line:
            return "codex"
        if kind in CLAUDE_CODE_TYPES and CLAUDE_CODE_KEYS & line.keys():
            return "claude-code"
        if kind in PI_TYPES and ("message" in line or "summary" in line or "parentId" in line):
            return "pi"
    return "text"


def looks_like_jsonl(text_head: str) -> bool:
    """At least half of the first non-blank lines are JSON objects."""
    lines = [line for line in text_head.split("\n") if line.strip()][:HEAD_OBJECTS]
    objects = sum(1 for _ in json_objects("\n".join(lines)))
    return bool(lines) and objects * 2 >= len(lines)
