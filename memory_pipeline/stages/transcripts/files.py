"""Files read and modified in a session, taken from its tool calls."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator

from memory_pipeline.models import Message, ToolCall
from memory_pipeline.stages.transcripts.serialize import NEWLINE_MARK

PATCH_BEGIN = "*** Begin Patch"
MAX_PATCH_LINES = 20
# a patch header at a line start, or after the newline mark of the serializer's one-line rendering
_HEADER_START = rf"(?:^|{NEWLINE_MARK} )"
_HEADER_END = rf"(?=\s*(?:{NEWLINE_MARK}|$))"
PATCH_FILE = re.compile(
    rf"{_HEADER_START}\*\*\* (?:Update|Add|Delete) File: (.+?){_HEADER_END}"
    rf"|{_HEADER_START}\*\*\* Move to: (.+?){_HEADER_END}",
    re.MULTILINE,
)

READ_TOOLS = {"read"}  # Claude Code Read, pi read
WRITE_TOOLS = {"edit", "multiedit", "write", "notebookedit"}  # Claude Code and pi
PATH_KEYS = ("file_path", "notebook_path", "path")
# the serializer renders inputs as `file_path=/x/y.py, old_string=…`; the text parser keeps that form
RENDERED_PATH = re.compile(r"(?:^|, )(?:file_path|notebook_path|path)=(.+?)(?=, [A-Za-z_]+=|$)")
JSON_PATH = re.compile(r'"(?:file_path|notebook_path|path)"\s*:\s*"((?:[^"\\]|\\.)*)"')


def summarize_patch(patch: str) -> str:
    """An apply_patch body reduced to its file headers and the first changed lines."""
    kept: list[str] = []
    changed = 0
    for line in patch.splitlines():
        if line.startswith("*** ") and not line.startswith((PATCH_BEGIN, "*** End Patch")):
            kept.append(line.rstrip())
        elif line.startswith(("+", "-")) and not line.startswith(("+++", "---")):
            changed += 1
            if changed <= MAX_PATCH_LINES:
                kept.append(line.rstrip())
    if changed > MAX_PATCH_LINES:
        kept.append(f"… {changed - MAX_PATCH_LINES} more changed lines")
    return "\n".join(kept)


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _decoded(call: ToolCall) -> object:
    try:
        return json.loads(call.input)
    except (ValueError, RecursionError):
        return None


def _path_argument(call: ToolCall) -> str | None:
    decoded = _decoded(call)
    if isinstance(decoded, dict):
        return next((decoded[k] for k in PATH_KEYS if isinstance(decoded.get(k), str) and decoded[k]), None)
    found = JSON_PATH.search(call.input) if call.input.lstrip().startswith("{") else RENDERED_PATH.search(call.input)
    if not found:
        return None
    path = found.group(1).strip()
    if call.input.lstrip().startswith("{"):
        try:
            path = json.loads(f'"{path}"')
        except ValueError:
            pass
    return path if path and not path.endswith("…") else None  # "…": cut off by a one-line rendering


def _patched_paths(call: ToolCall) -> list[str]:
    """Codex apply_patch, called directly or through a shell command (patches arrive summarized)."""
    decoded = _decoded(call)
    texts = list(_strings(decoded)) if decoded is not None else [call.input]
    found = [a or b for text in texts for a, b in PATCH_FILE.findall(text)]
    return [path for path in found if not path.endswith("…")]  # cut off by a one-line rendering


def files_touched(messages: Iterable[Message]) -> tuple[list[str], list[str]]:
    """(read, modified) paths from tool calls, in order of first appearance, without duplicates."""
    read: dict[str, None] = {}
    modified: dict[str, None] = {}
    for message in messages:
        for call in message.tool_calls:
            name = call.name.lower()
            if name in READ_TOOLS or name in WRITE_TOOLS:
                path = _path_argument(call)
                if path:
                    (read if name in READ_TOOLS else modified).setdefault(path, None)
                continue
            for path in _patched_paths(call):
                modified.setdefault(path, None)
    return list(read), list(modified)
