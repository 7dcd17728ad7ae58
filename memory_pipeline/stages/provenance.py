"""Who said it: the provenance label of every transcript message, and what a fact's labels allow.

A transcript puts many things in a user-role entry that the user never typed: tool results (Claude
Code writes them as user lines), a subagent's prompt (written by the parent agent), a hook's output,
a slash command's output, a compaction summary. The parsers drop the client's bookkeeping
(`transcripts/bookkeeping.py`, Claude Code's `isMeta` lines, Codex's injected context) and mark the
rest; `label_of` names each message:

| label | what it is |
|---|---|
| user | what the user typed |
| relayed | a user-role entry someone else wrote (a subagent's prompt from its parent agent) |
| assistant | the agent's own words |
| tool | output of a command or any other tool |
| file | a file the agent read (Read, Glob, Grep, `read`, `ls`, …) |
| web | a fetched page or a search result (WebFetch, WebSearch, an MCP fetch or browser tool, …) |
| summary | a compaction summary |
| system | anything else the client wrote |
| pasted | a user turn holding a block the user pasted rather than typed (`pasted_block`) |
| unknown | a stored point or fact that recorded no label (indexed or observed before labels were kept) |

Each fact keeps the labels of the messages it cites (`Fact.source_roles`). Only `user` may make a
user-level preference or a rule (`user_typed`); a fact citing only tool output, files or web pages
never reaches the Reflector or the briefing (`from_tool_output`).

Every reader is told who said what it reads: a stored point carries its label (`point_labels`: a
message its own, a fact the labels of the messages it cites), shown as `said_by`.

None of the three transcript formats records which words were pasted (docs/trust-boundaries.md
says where each client drops the mark). Claude Code's prompt history does, and a snapshot marks the
turns it ties (`Message.pasted`, stages/transcripts/pastes.py); otherwise a pasted block is told by
its shape: a fenced block, a
quoted block (`>` lines) or a log-shaped run of lines inside a user turn is what the user showed
the agent, not what they told it. Such a turn is labelled `pasted`: like a file, it may be an
observation but never a user-level preference, a rule or a P0.
"""

from __future__ import annotations

import re

from memory_pipeline.models import Message

OUTSIDE = frozenset({"tool", "file", "web"})  # what the agent read, not what anyone said to it
PASTED = "pasted"
UNKNOWN = "unknown"
NOT_TYPED = OUTSIDE | {PASTED}  # a fact citing any of these is not the user's own instruction
ROLE_LABELS = {"user": "user", "assistant": "assistant"}  # a stored message indexed before labels: its role's
FILE_TOOLS = frozenset({"read", "glob", "grep", "ls", "find", "notebookread", "read_file", "list_dir", "view",
                        "view_image", "list_directory", "read_many_files", "search_files"})
_WEB_TOOL = re.compile(r"web|fetch|browser|playwright|puppeteer|http|url|firecrawl|tavily|exa_", re.IGNORECASE)


def tool_label(name: str) -> str:
    """file, web or tool for a tool's name (an MCP tool `mcp__server__tool` by its last part)."""
    base = name.rsplit("__", 1)[-1].lower()
    if _WEB_TOOL.search(name):
        return "web"
    if base in FILE_TOOLS or (name.startswith("mcp__") and "filesystem" in name.lower()):
        return "file"
    return "tool"


def tool_names(messages: list[Message]) -> dict[str, str]:
    """Each tool call's id → the tool's name, over a transcript's assistant messages."""
    return {call.id: call.name for message in messages for call in message.tool_calls if call.id}


def label_of(message: Message, calls: dict[str, str]) -> str:
    """The provenance label of one message; `calls` from `tool_names` over its transcript."""
    if message.is_compaction_summary:
        return "summary"
    if message.role == "user":
        return "relayed" if message.relayed else PASTED if message.pasted or pasted_block(message.text) else "user"
    if message.role == "tool":
        labels = {tool_label(calls.get(result.call_id, "")) for result in message.tool_results}
        return "web" if "web" in labels else "file" if labels == {"file"} else "tool"
    return message.role


def labels_of(messages: list[Message]) -> dict[str, str]:
    """Each message's id → its provenance label."""
    calls = tool_names(messages)
    return {message.id: label_of(message, calls) for message in messages}


def user_typed(source_roles: list[str] | tuple[str, ...]) -> bool:
    """A fact the user typed, with nothing the agent read or the user pasted among its sources: the
    only kind that may be a user-level preference, a rule (ledger constraint) or a P0."""
    return "user" in source_roles and not NOT_TYPED.intersection(source_roles)


def from_tool_output(source_roles: list[str] | tuple[str, ...]) -> bool:
    """A fact that cites tool output, a file or a web page and no message the user typed."""
    return bool(OUTSIDE.intersection(source_roles)) and "user" not in source_roles


# --- pasted blocks -------------------------------------------------------------------------

_FENCE = re.compile(r"^\s*(```|~~~)")
_QUOTED = re.compile(r"^\s*>")
_LOG_LINE = re.compile(
    r"^\s*(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[?\d\d:\d\d:\d\d|\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|"
    r"CRITICAL)\b|at [\w$.<>]+\(|File \"[^\"]+\", line \d+|Traceback \(most recent call last\)|"
    r"[\w./-]+:\d+(?::\d+)?: |\$ |[\w.]+(?:Error|Exception): )")
LOG_LINES = 3  # consecutive log-shaped lines that make a pasted log


def pasted_block(text: str) -> bool:
    """A user turn holding what the user showed rather than said: a fenced block (``` or ~~~), a
    quoted block (lines starting with `>`), or LOG_LINES consecutive log-shaped lines (timestamps,
    log levels, stack frames, `file:line:` compiler output, a shell prompt)."""
    run = 0
    for line in text.splitlines():
        if _FENCE.match(line) or _QUOTED.match(line):
            return True
        run = run + 1 if _LOG_LINE.match(line) else 0
        if run >= LOG_LINES:
            return True
    return False


# --- what a reader is told -----------------------------------------------------------------

def point_labels(payload: dict) -> list[str]:
    """Who said a stored point's words. A message: its label, recorded when it was indexed (one
    indexed before labels were kept: its role's). An observation's fact or narrative: the labels of
    the messages it cites; a memory maintenance merged from several sessions: those of every source.
    `unknown` where nothing recorded them."""
    if payload.get("tier") == "messages":
        return [str(payload.get("provenance") or ROLE_LABELS.get(str(payload.get("role") or ""), UNKNOWN))]
    merged = payload.get("sources")
    groups = ([s.get("source_roles") for s in merged if isinstance(s, dict)]
              if isinstance(merged, list) and merged else [payload.get("source_roles")])
    labels = [str(label) for roles in groups for label in (roles or [UNKNOWN])]
    return list(dict.fromkeys(labels)) or [UNKNOWN]


def said_by(labels: list[str] | tuple[str, ...]) -> str:
    """The labels as one word for a reader: "user", "assistant+tool", "unknown"."""
    return "+".join(dict.fromkeys(labels)) or UNKNOWN


def speaker(payload: dict) -> str:
    """How a stored message names who said it: "User", "Assistant", "User (relayed)", "User (pasted)"."""
    role = str(payload.get("role") or "")
    label = point_labels(payload)[0]
    return role.title() + (f" ({label})" if role and label not in (role, UNKNOWN) else "")
