"""Claude Code session JSONL → Transcript.

Assistant replies are written one content block per line; lines sharing `message.id` are merged
into one Message whose id is the first line's `uuid`. Sidechain (subagent) lines are skipped in a
main session (a subagent's own file is read whole), and so are meta, progress and bookkeeping
lines, a custom slash command's text written after it (`is_command_text`), and the client's own
text in user lines (`bookkeeping.user_words`: slash commands, their output, task notifications); a
`compact_boundary` plus the `isCompactSummary` line after it become one compaction summary.

The user's answer to the agent's AskUserQuestion call is the user's own words: Claude Code records
it structurally (`toolUseResult.answers`, question → the option chosen or the text typed), and it
becomes a user message after the tool result (`answer_messages`). Only that structured answer does:
the tool result's text stays tool output, and the question and its options are the agent's words,
added to the asking assistant message (`question_text`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from memory_pipeline.models import Message, ToolCall, ToolResult, Transcript
from memory_pipeline.stages.transcripts.bookkeeping import user_words
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
from memory_pipeline.stages.transcripts.pastes import PASTED_FIELD
from memory_pipeline.stages.untrusted import working_folder

ASK_TOOLS = frozenset({"AskUserQuestion"})
COMMAND_LINE = re.compile(r"<command-name>/[^<]+</command-name>")
ANSWER_SUFFIX = "#answer"


def question_text(arguments: object) -> str:
    """The questions of an AskUserQuestion call with their options, as the agent asked them:
    "Q? (options: A; B)"."""
    lines = []
    for question in (as_dict(q) for q in as_list(as_dict(arguments).get("questions"))):
        asked = " ".join(as_str(question.get("question")).split())
        labels = [" ".join(as_str(as_dict(o).get("label")).split()) for o in as_list(question.get("options"))]
        labels = [label for label in labels if label]
        if asked:
            lines.append(f"{asked} (options: {'; '.join(labels)})" if labels else asked)
    return "\n".join(lines)


def answer_text(record: object) -> str:
    """The user's answers in a tool result's structured record (`toolUseResult.answers`), one a line."""
    answers = as_dict(as_dict(record).get("answers"))
    return "\n".join(" ".join(a.split()) for a in (as_str(v) for v in answers.values()) if a.strip())


def is_command_text(line: dict[str, Any], command_at: str | None) -> bool:
    """The text of a custom slash command (`~/.claude/commands/export.md`), written as the user line right after
    the command's own line and at its timestamp: the command file's words, not what the user said then. Claude
    Code marks it `isMeta` now; transcripts of mid-2025 and exports of them do not."""
    if not command_at or as_str(line.get("timestamp")) != command_at:
        return False
    content = as_dict(line.get("message")).get("content")
    return not any(as_dict(b).get("type") == "tool_result" for b in as_list(content))


def _names_command(content: object) -> bool:
    """A user line that is a slash command's own line; only its text is read, never a tool result's output."""
    texts = [b for b in as_list(content) if as_dict(b).get("type") == "text"]
    text = content if isinstance(content, str) else block_text(texts)
    return bool(COMMAND_LINE.search(text))


def _context_tokens(usage: dict[str, Any]) -> int | None:
    if not usage:
        return None
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return sum(as_int(usage.get(k)) for k in keys)


class _Reader:
    def __init__(self, include_sidechain: bool) -> None:
        self.include_sidechain = include_sidechain
        self.messages: list[Message] = []
        self.by_message_id: dict[str, Message] = {}
        self.session_id = ""
        self.cwd: str | None = None
        self.title: str | None = None
        self.pending_boundary: dict[str, Any] | None = None
        self.asks: set[str] = set()  # ids of the agent's AskUserQuestion calls
        self.command_at: str | None = None  # the timestamp of a slash command's line, until the line after it

    def read(self, line: dict[str, Any]) -> None:
        kind = line.get("type")
        if kind == "summary" and not self.title and as_str(line.get("summary")).strip():
            self.title = line["summary"].strip()
        if (line.get("isSidechain") is True and not self.include_sidechain) or line.get("isMeta") is True:
            return
        if kind == "system" and line.get("subtype") == "compact_boundary":
            self.pending_boundary = line
            return
        if kind not in ("user", "assistant"):  # progress, file-history-snapshot, queue-operation, other system lines
            return
        message = as_dict(line.get("message"))
        uuid = as_str(line.get("uuid"))
        if not message or not uuid:
            return
        self.session_id = self.session_id or as_str(line.get("sessionId"))
        self.cwd = self.cwd or working_folder(as_str(line.get("cwd")))
        command_at, self.command_at = self.command_at, None
        if kind == "assistant":
            self._assistant(line, message, uuid)
        elif not is_command_text(line, command_at):
            self._user(line, message, uuid)
            if _names_command(message.get("content")):
                self.command_at = as_str(line.get("timestamp"))

    def flush_boundary(self) -> None:
        """A compact boundary with no summary line after it still marks a compaction."""
        boundary, self.pending_boundary = self.pending_boundary, None
        if boundary and as_str(boundary.get("uuid")):
            self.messages.append(Message(
                id=boundary["uuid"],
                role="system",
                timestamp=parse_timestamp(boundary.get("timestamp")),
                text=as_str(boundary.get("content")) or "Conversation compacted",
                is_compaction_summary=True,
            ))

    def _user(self, line: dict[str, Any], message: dict[str, Any], uuid: str) -> None:
        timestamp = parse_timestamp(line.get("timestamp"))
        content = message.get("content")
        if line.get("isCompactSummary") is True:
            self.pending_boundary = None
            self.messages.append(Message(
                id=uuid, role="system", timestamp=timestamp, text=block_text(content).strip(),
                is_compaction_summary=True,
            ))
            return
        self.flush_boundary()
        blocks = [as_dict(b) for b in as_list(content)]
        results = [
            ToolResult(
                call_id=as_str(b.get("tool_use_id")),
                text=bounded_output(block_text(b.get("content"))),
                is_error=b.get("is_error") is True,
            )
            for b in blocks
            if b.get("type") == "tool_result"
        ]
        text = user_words(block_text([b for b in blocks if b.get("type") != "tool_result"] if results else content))
        self.messages.append(Message(
            id=uuid, role="tool" if results else "user", timestamp=timestamp, text=text.strip(),
            tool_results=results, relayed=line.get("isSidechain") is True,  # a subagent's prompt: its parent wrote it
            pasted=line.get(PASTED_FIELD) is True,  # the prompt history ties it to a paste (marked in the snapshot)
        ))
        answered = any(r.call_id in self.asks for r in results)
        if answered and (answer := answer_text(line.get("toolUseResult"))):
            self.messages.append(Message(id=uuid + ANSWER_SUFFIX, role="user", timestamp=timestamp, text=answer,
                                         relayed=line.get("isSidechain") is True))

    def _assistant(self, line: dict[str, Any], message: dict[str, Any], uuid: str) -> None:
        self.flush_boundary()
        message_id = as_str(message.get("id")) or uuid
        target = self.by_message_id.get(message_id)
        if target is None:
            target = Message(id=uuid, role="assistant", timestamp=parse_timestamp(line.get("timestamp")))
            self.by_message_id[message_id] = target
            self.messages.append(target)
        content = message.get("content")
        texts = [block_text(content)] if isinstance(content, str) else []
        for block in (as_dict(b) for b in as_list(content)):
            if block.get("type") == "text":
                texts.append(as_str(block.get("text")))
            elif block.get("type") == "tool_use":
                target.tool_calls.append(ToolCall(
                    id=as_str(block.get("id")),
                    name=as_str(block.get("name")) or "tool",
                    input=render_arguments(block.get("input", {})),
                ))
                if block.get("name") in ASK_TOOLS and as_str(block.get("id")):
                    self.asks.add(block["id"])
                    texts.append(question_text(block.get("input")))
        text = "\n\n".join(t.strip() for t in texts if t.strip())
        if text:
            target.text = f"{target.text}\n\n{text}" if target.text else text
        tokens = _context_tokens(as_dict(message.get("usage")))
        if tokens is not None:
            target.context_tokens = max(tokens, target.context_tokens or 0)


def _read_all(reader: _Reader, lines: Iterable[dict[str, Any]]) -> None:
    for line in lines:
        try:
            reader.read(line)
        except LINE_ERRORS:
            continue


def _is_main_line(line: dict[str, Any]) -> bool:
    return line.get("type") in ("user", "assistant") and line.get("isSidechain") is not True


def parse_claude_code(text: str | Iterable[str]) -> Transcript:
    """Parse Claude Code JSONL (the text, or its lines as they are read). Lines that do not fit are skipped.

    One pass: a subagent's own file has only sidechain lines (read them); in a main session they
    are skipped. Lines are held only until the first main-session line decides which it is.
    """
    objects = (line for _, line in json_objects(text))
    undecided: list[dict[str, Any]] = []
    reader: _Reader | None = None
    for line in objects:
        undecided.append(line)
        if _is_main_line(line):
            reader = _Reader(include_sidechain=False)
            break
    reader = reader or _Reader(include_sidechain=True)
    _read_all(reader, undecided)
    undecided.clear()
    _read_all(reader, objects)
    reader.flush_boundary()
    messages = [m for m in reader.messages if m.text or m.tool_calls or m.tool_results]
    return Transcript(
        format="claude-code", session_id=reader.session_id, cwd=reader.cwd, title=reader.title, messages=messages
    )
