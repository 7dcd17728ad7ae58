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

Each fact keeps the labels of the messages it cites (`Fact.source_roles`). Only `user` may make a
user-level preference or a rule (`user_typed`); a fact citing only tool output, files or web pages
never reaches the Reflector or the briefing (`from_tool_output`).
"""

from __future__ import annotations

import re

from memory_pipeline.models import Message

OUTSIDE = frozenset({"tool", "file", "web"})  # what the agent read, not what anyone said to it
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
        return "relayed" if message.relayed else "user"
    if message.role == "tool":
        labels = {tool_label(calls.get(result.call_id, "")) for result in message.tool_results}
        return "web" if "web" in labels else "file" if labels == {"file"} else "tool"
    return message.role


def labels_of(messages: list[Message]) -> dict[str, str]:
    """Each message's id → its provenance label."""
    calls = tool_names(messages)
    return {message.id: label_of(message, calls) for message in messages}


def user_typed(source_roles: list[str] | tuple[str, ...]) -> bool:
    """A fact the user typed, with nothing the agent read among its sources: the only kind that may
    be a user-level preference, a rule (ledger constraint) or a P0."""
    return "user" in source_roles and not OUTSIDE.intersection(source_roles)


def from_tool_output(source_roles: list[str] | tuple[str, ...]) -> bool:
    """A fact that cites tool output, a file or a web page and no message the user typed."""
    return bool(OUTSIDE.intersection(source_roles)) and "user" not in source_roles
