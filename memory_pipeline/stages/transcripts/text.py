"""Plain-text transcripts → Transcript. Reads back what `serialize_transcript` writes.

A message starts at a header line: `[HH:MM] [User] (m3): …`, `[User]: …`, `User: …`,
`[2026-11-20 09:15] [Assistant]: …`; later lines continue it. Text with no header at all becomes
one user message per paragraph. When the first header carries a ref (m1), only a header with the
next ref (m2, m3, …) starts a message, so tool output quoting such lines stays inside its block.
Ids are t1, t2, … in order.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time

from memory_pipeline.models import Message, Role, ToolCall, ToolResult, Transcript
from memory_pipeline.stages.transcripts.serialize import CALL_ARROW

HEADER = re.compile(
    r"^(?:\[(?:(?P<date>\d{4}-\d{2}-\d{2})[ T])?(?P<time>\d{1,2}:\d{2}|--:--)\][ \t]*)?"
    r"(?:\[(?P<label>[A-Za-z][A-Za-z ]{0,30})\]|(?P<bare>User|Assistant|Human|AI|System|USER|ASSISTANT))"
    r"(?:[ \t]*\((?P<ref>[A-Za-z]{0,3}\d+)\))?:[ \t]?(?P<text>.*)$"
)
CALL_LINE = re.compile(rf"^{CALL_ARROW}(?P<name>[^\s()]+)\((?P<args>.*)\)$")
# label → (role, is compaction summary); None drops the block
LABELS: dict[str, tuple[Role, bool] | None] = {
    "user": ("user", False),
    "human": ("user", False),
    "assistant": ("assistant", False),
    "ai": ("assistant", False),
    "assistant tool calls": ("assistant", False),
    "tool": ("tool", False),
    "tool result": ("tool", False),
    "system": ("system", False),
    "summary": ("system", True),
    "assistant thinking": None,
}
DUMMY_DATE = date(1970, 1, 1)


def _timestamp(day: str | None, clock: str | None) -> datetime | None:
    if not clock or clock == "--:--":
        return None
    try:
        hour, minute = (int(part) for part in clock.split(":"))
        on = date.fromisoformat(day) if day else DUMMY_DATE
        return datetime.combine(on, time(hour, minute), tzinfo=UTC)
    except ValueError:
        return None


def _header(line: str) -> re.Match[str] | None:
    found = HEADER.match(line)
    if found is None:
        return None
    label = (found.group("label") or found.group("bare")).strip().lower()
    return found if label in LABELS else None


def _ref_number(header: re.Match[str]) -> int | None:
    ref = header["ref"]
    return int(re.sub(r"\D", "", ref)) if ref else None


def _message(number: int, role: Role, summary: bool, timestamp: datetime | None, body: str) -> Message:
    mid = f"t{number}"
    if role == "tool":
        result = ToolResult(call_id="", text=body.strip())
        return Message(id=mid, role="tool", timestamp=timestamp, tool_results=[result])
    calls: list[ToolCall] = []
    kept: list[str] = []
    for line in body.split("\n"):
        call = CALL_LINE.match(line) if role == "assistant" else None
        if call:
            calls.append(ToolCall(id=f"{mid}.{len(calls) + 1}", name=call["name"], input=call["args"]))
        else:
            kept.append(line)
    return Message(
        id=mid, role=role, timestamp=timestamp, text="\n".join(kept).strip(), tool_calls=calls,
        is_compaction_summary=summary,
    )


def _paragraphs(lines: list[str]) -> list[str]:
    text = "\n".join(lines).strip()
    return [p.strip() for p in re.split(r"\n[ \t]*\n", text) if p.strip()] if text else []


def parse_text(text: str) -> Transcript:
    """Parse serialized or hand-written text into messages; never fails on text input."""
    preamble: list[str] = []
    blocks: list[tuple[re.Match[str], list[str]]] = []
    next_ref: int | None = None  # serialized text numbers its blocks; then only the next number starts one
    for line in text.replace("\r\n", "\n").split("\n"):
        header = _header(line)
        if header is not None and next_ref is not None and _ref_number(header) != next_ref:
            header = None
        if header is not None:
            number = _ref_number(header)
            next_ref = number + 1 if number is not None and (next_ref is not None or not blocks) else None
            blocks.append((header, [header["text"]]))
        elif blocks:
            blocks[-1][1].append(line)
        else:
            preamble.append(line)
    messages: list[Message] = []
    for paragraph in _paragraphs(preamble):
        messages.append(Message(id=f"t{len(messages) + 1}", role="user", text=paragraph))
    for header, lines in blocks:
        kind = LABELS[(header["label"] or header["bare"]).strip().lower()]
        body = "\n".join(lines).strip("\n")
        if kind is None or not body.strip():
            continue
        role, summary = kind
        timestamp = _timestamp(header["date"], header["time"])
        messages.append(_message(len(messages) + 1, role, summary, timestamp, body))
    return Transcript(format="text", session_id="", messages=messages)
