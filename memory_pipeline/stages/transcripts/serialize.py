"""Render messages as `[HH:MM] [User] (m1): …` blocks; the text parser reads this format back.

Format (other code parses it):
- one block per message, blocks separated by one blank line;
- header `[HH:MM] [Role] (mN): ` then the text, later lines of the text follow; written only here,
  from the message's structure: every line break of a text is a plain "\n" and a line of it that
  looks like a header is escaped with a leading backslash (`stages/untrusted.block_text`), so no
  message text can start a block, say who said it or close the data block it is sent in;
- roles User, Assistant, Tool, System, and Summary for a compaction summary; `[--:--]` without a time;
- tool calls as `  → Name(arg=value, …)` lines inside the assistant block;
- tool results as their own `[Tool]` block, each cut to `max_tool_chars` with `… [truncated N chars]`,
  a failed one starting with `[error]`.
"""

from __future__ import annotations

import json
import re

from memory_pipeline.models import Message, SerializedTranscript, ToolCall
from memory_pipeline.stages.untrusted import block_text, one_line, plain_lines

ROLE_LABELS = {"user": "User", "assistant": "Assistant", "tool": "Tool", "system": "System"}
SUMMARY_LABEL = "Summary"
NO_TIME = "--:--"
CALL_ARROW = "  → "
NEWLINE_MARK = "⏎"
MAX_CALL_CHARS = 120
TRUNCATED = re.compile(r"\n… \[truncated \d+ chars\]$")


def _one_line(text: str) -> str:
    return re.sub(r"\s*\n\s*", f" {NEWLINE_MARK} ", plain_lines(text).strip())


def render_call(call: ToolCall) -> str:
    """`  → Read(file_path=/x/y.py)`: the name and a one-line rendering of the input."""
    try:
        decoded = json.loads(call.input)
    except (ValueError, RecursionError):
        decoded = None
    if isinstance(decoded, dict):
        parts = [
            f"{key}={value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}"
            for key, value in decoded.items()
        ]
        arguments = _one_line(", ".join(parts))
    else:
        arguments = _one_line(call.input)
    if len(arguments) > MAX_CALL_CHARS:
        arguments = arguments[: MAX_CALL_CHARS - 1] + "…"
    return block_text(f"{CALL_ARROW}{one_line(call.name)}({arguments})")


def truncate_output(text: str, max_chars: int) -> str:
    """Cut tool output to max_chars with a marker; already-cut output is left as it is."""
    text = text.strip()
    marker = TRUNCATED.search(text)
    if len(text) <= max_chars or (marker and marker.start() <= max_chars):
        return text
    return f"{text[:max_chars].rstrip()}\n… [truncated {len(text) - max_chars} chars]"


def _body(message: Message, *, max_tool_chars: int, include_tools: bool) -> str:
    lines = [block_text(message.text.strip())] if message.text.strip() else []
    if include_tools:
        for result in message.tool_results:
            output = block_text(truncate_output(result.text, max_tool_chars))
            if result.is_error and not output.startswith("[error]"):
                output = f"[error] {output}".rstrip()
            lines.append(output)
        lines.extend(render_call(call) for call in message.tool_calls)
    return "\n".join(line for line in lines if line)


def _header(message: Message, ref: str) -> str:
    time = message.timestamp.strftime("%H:%M") if message.timestamp else NO_TIME
    label = SUMMARY_LABEL if message.is_compaction_summary else ROLE_LABELS[message.role]
    return f"[{time}] [{label}] ({ref}):"


def serialize_transcript(
    messages: list[Message], *, max_tool_chars: int = 400, include_tools: bool = True
) -> SerializedTranscript:
    """The messages as text blocks plus the map from refs (m1, m2, …) to source message ids."""
    blocks: list[str] = []
    refs: dict[str, str] = {}
    for message in messages:
        if message.role == "tool" and not include_tools:
            continue
        body = _body(message, max_tool_chars=max_tool_chars, include_tools=include_tools)
        if not body:
            continue
        ref = f"m{len(refs) + 1}"
        refs[ref] = message.id
        separator = "\n" if body.startswith(CALL_ARROW) else " "
        blocks.append(f"{_header(message, ref)}{separator}{body}")
    return SerializedTranscript(text="\n\n".join(blocks), refs=refs)
