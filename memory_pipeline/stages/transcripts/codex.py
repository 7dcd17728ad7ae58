"""Codex CLI rollout JSONL (`{timestamp, type, payload}` lines) → Transcript.

User and assistant text is written twice (a `response_item` message and an `event_msg`); the
response items are kept and the events used only when a file has none. Injected environment and
AGENTS.md text, developer messages and reasoning (with its encrypted content) are dropped.
"""

from __future__ import annotations

import json
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

INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "<INSTRUCTIONS>",
    "# AGENTS.md instructions",
    "<user_shell_command>",
    "<turn_aborted>",
)
CALL_TYPES = {"function_call", "custom_tool_call", "local_shell_call"}
OUTPUT_TYPES = {"function_call_output", "custom_tool_call_output"}


def _message_text(content: object) -> str:
    blocks = [content] if isinstance(content, str) else as_list(content)
    kept = [b for b in blocks if not block_text([b]).lstrip().startswith(INJECTED_PREFIXES)]
    return block_text(kept).strip()


def _call(payload: dict[str, Any]) -> ToolCall:
    if payload.get("type") == "local_shell_call":
        arguments: object = as_dict(payload.get("action")).get("command", [])
        name = "shell"
    else:
        arguments = payload.get("arguments") if payload.get("type") == "function_call" else payload.get("input")
        name = as_str(payload.get("name")) or "tool"
    call_id = as_str(payload.get("call_id")) or as_str(payload.get("id"))
    return ToolCall(id=call_id, name=name, input=render_arguments(arguments if arguments is not None else ""))


def _result(payload: dict[str, Any]) -> ToolResult:
    output = payload.get("output")
    is_error = False
    if isinstance(output, str) and output.lstrip().startswith("{"):
        try:  # older rollouts: '{"output": "...", "metadata": {"exit_code": 1}}'
            decoded = json.loads(output)
        except (ValueError, RecursionError):
            decoded = None
        if isinstance(decoded, dict) and isinstance(decoded.get("output"), str):
            output = decoded["output"]
            exit_code = as_dict(decoded.get("metadata")).get("exit_code")
            is_error = isinstance(exit_code, int) and exit_code != 0
    if isinstance(output, dict):
        is_error = output.get("success") is False
        output = output.get("content", "")
    return ToolResult(call_id=as_str(payload.get("call_id")), text=bounded_output(block_text(output)), is_error=is_error)


class _Reader:
    def __init__(self, roles_from_items: set[str]) -> None:
        self.roles_from_items = roles_from_items  # roles whose text comes from response_item lines
        self.messages: list[Message] = []
        self.session_id = ""
        self.cwd: str | None = None

    def read(self, index: int, line: dict[str, Any]) -> None:
        kind, payload = line.get("type"), as_dict(line.get("payload"))
        ptype = payload.get("type")
        timestamp = parse_timestamp(line.get("timestamp"))
        mid = f"c{index}"
        if kind == "session_meta":
            self.session_id = self.session_id or as_str(payload.get("id"))
            self.cwd = self.cwd or working_folder(as_str(payload.get("cwd")))
        elif kind == "compacted" and as_str(payload.get("message")).strip():
            self.messages.append(Message(
                id=mid, role="system", timestamp=timestamp, text=payload["message"].strip(), is_compaction_summary=True
            ))
        elif kind == "response_item" and ptype == "message" and payload.get("role") in ("user", "assistant"):
            self._text(mid, payload["role"], timestamp, _message_text(payload.get("content")))
        elif kind == "event_msg" and ptype in ("user_message", "agent_message"):
            role = "user" if ptype == "user_message" else "assistant"
            if role not in self.roles_from_items:
                self._text(mid, role, timestamp, _message_text(as_str(payload.get("message"))))
        elif kind == "event_msg" and ptype == "token_count":
            self._context(payload)
        elif kind == "response_item" and ptype in CALL_TYPES:
            self._assistant_for_call(mid, timestamp).tool_calls.append(_call(payload))
        elif kind == "response_item" and ptype in OUTPUT_TYPES:
            self.messages.append(Message(id=mid, role="tool", timestamp=timestamp, tool_results=[_result(payload)]))

    def _text(self, mid: str, role: str, timestamp, text: str) -> None:
        if text:
            self.messages.append(Message(id=mid, role=role, timestamp=timestamp, text=text))

    def _assistant_for_call(self, mid: str, timestamp) -> Message:
        last = self.messages[-1] if self.messages else None
        if last is not None and last.role == "assistant" and not last.is_compaction_summary:
            return last
        message = Message(id=mid, role="assistant", timestamp=timestamp)
        self.messages.append(message)
        return message

    def _context(self, payload: dict[str, Any]) -> None:
        usage = as_dict(as_dict(payload.get("info")).get("last_token_usage"))
        tokens = as_int(usage.get("input_tokens"))
        last = next((m for m in reversed(self.messages) if m.role == "assistant"), None)
        if tokens and last is not None and last.context_tokens is None:
            last.context_tokens = tokens


def _roles_from_items(lines: list[tuple[int, dict[str, Any]]]) -> set[str]:
    roles = set()
    for _, line in lines:
        payload = as_dict(line.get("payload"))
        if line.get("type") == "response_item" and payload.get("type") == "message":
            roles.add(payload.get("role"))
    return {r for r in roles if isinstance(r, str)}


def parse_codex(text: str) -> Transcript:
    """Parse a Codex rollout. Unknown line types are skipped."""
    lines = list(json_objects(text))
    reader = _Reader(_roles_from_items(lines))
    for index, line in lines:
        try:
            reader.read(index, line)
        except LINE_ERRORS:
            continue
    messages = [m for m in reader.messages if m.text or m.tool_calls or m.tool_results]
    return Transcript(format="codex", session_id=reader.session_id, cwd=reader.cwd, messages=messages)
