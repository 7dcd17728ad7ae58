"""pi session JSONL (v1 without entry ids, v3 with 8-hex ids) → Transcript."""

from __future__ import annotations

from typing import Any

from memory_pipeline.models import Message, ToolCall, ToolResult, Transcript
from memory_pipeline.stages.transcripts.jsonl import (
    LINE_ERRORS,
    as_dict,
    as_int,
    as_list,
    as_str,
    block_text,
    bounded_output,
    json_objects,
    parse_timestamp,
    render_arguments,
)
from memory_pipeline.stages.untrusted import working_folder


def _context_tokens(usage: dict[str, Any]) -> int | None:
    if not usage:
        return None
    return sum(as_int(usage.get(k)) for k in ("input", "cacheRead", "cacheWrite"))


def _assistant(entry_id: str, timestamp, message: dict[str, Any]) -> Message:
    texts: list[str] = []
    calls: list[ToolCall] = []
    content = message.get("content")
    if isinstance(content, str):
        texts.append(content)
    for block in (as_dict(b) for b in as_list(content)):
        if block.get("type") == "text":
            texts.append(as_str(block.get("text")))
        elif block.get("type") == "toolCall":
            calls.append(ToolCall(
                id=as_str(block.get("id")),
                name=as_str(block.get("name")) or "tool",
                input=render_arguments(block.get("arguments", {})),
            ))
    return Message(
        id=entry_id,
        role="assistant",
        timestamp=timestamp,
        text="\n\n".join(t.strip() for t in texts if t.strip()),
        tool_calls=calls,
        context_tokens=_context_tokens(as_dict(message.get("usage"))),
    )


def _message(entry_id: str, timestamp, message: dict[str, Any]) -> Message | None:
    role = message.get("role")
    if role == "user":
        return Message(id=entry_id, role="user", timestamp=timestamp, text=block_text(message.get("content")).strip())
    if role == "assistant":
        return _assistant(entry_id, timestamp, message)
    if role == "toolResult":
        result = ToolResult(
            call_id=as_str(message.get("toolCallId")),
            text=bounded_output(block_text(message.get("content"))),
            is_error=message.get("isError") is True,
        )
        return Message(id=entry_id, role="tool", timestamp=timestamp, tool_results=[result])
    if role == "bashExecution":  # a command the user ran with `!`: the call and its output in one entry
        exit_code = message.get("exitCode")
        result = ToolResult(
            call_id=entry_id,
            text=bounded_output(as_str(message.get("output"))),
            is_error=message.get("cancelled") is True or (isinstance(exit_code, int) and exit_code != 0),
        )
        return Message(
            id=entry_id, role="tool", timestamp=timestamp, text=f"$ {as_str(message.get('command'))}",
            tool_results=[result],
        )
    return None


def parse_pi(text: str) -> Transcript:
    """Parse pi session JSONL text. Entries other than messages and compactions are skipped."""
    session_id, cwd, title = "", None, None
    messages: list[Message] = []
    for index, entry in json_objects(text):
        try:
            kind = entry.get("type")
            if kind == "session":
                session_id = session_id or as_str(entry.get("id"))
                cwd = cwd or working_folder(as_str(entry.get("cwd")))
                continue
            if kind == "session_info" and as_str(entry.get("name")).strip():
                title = entry["name"].strip()
                continue
            entry_id = as_str(entry.get("id")) or f"e{index}"
            message = as_dict(entry.get("message"))
            timestamp = parse_timestamp(entry.get("timestamp")) or parse_timestamp(message.get("timestamp"))
            if kind == "compaction" and as_str(entry.get("summary")).strip():
                messages.append(Message(
                    id=entry_id, role="system", timestamp=timestamp, text=entry["summary"].strip(),
                    is_compaction_summary=True,
                ))
            elif kind == "message" and message:
                parsed = _message(entry_id, timestamp, message)
                if parsed is not None and (parsed.text or parsed.tool_calls or parsed.tool_results):
                    messages.append(parsed)
        except LINE_ERRORS:
            continue
    return Transcript(format="pi", session_id=session_id, cwd=cwd, title=title, messages=messages)
