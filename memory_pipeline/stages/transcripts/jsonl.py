"""Helpers shared by the JSONL parsers: tolerant line decoding, timestamps, block text, arguments."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from memory_pipeline.stages.transcripts.files import PATCH_BEGIN, summarize_patch

LINE_ERRORS = (TypeError, ValueError, AttributeError, KeyError)  # a bad line is skipped, never fatal
MAX_ARGUMENT_CHARS = 2000  # per string value inside tool arguments
MAX_RENDERED_ARGUMENTS = 8000
MAX_TOOL_OUTPUT_CHARS = 32_000  # per tool result, cut when parsed: a 5 MB build log is not kept whole


def json_objects(lines: str | Iterable[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line index, object) for every line that is a JSON object; other lines are skipped.
    `lines` is the whole text or its lines one by one (a file read as it goes)."""
    for index, line in enumerate(lines.split("\n") if isinstance(lines, str) else lines):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            yield index, value


def as_dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: object) -> str:
    return value if isinstance(value, str) else ""


def as_int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def parse_timestamp(value: object) -> datetime | None:
    """ISO-8601 strings keep their offset; numbers are epoch seconds or milliseconds (UTC)."""
    try:
        if isinstance(value, str) and value:
            parsed = datetime.fromisoformat(value.strip())
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            seconds = value / 1000 if value > 1e11 else value
            return datetime.fromtimestamp(seconds, tz=UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def block_text(content: object) -> str:
    """The text of a string or a list of content blocks (text/input_text/output_text; images noted)."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in as_list(content):
        if isinstance(block, str):
            parts.append(block)
            continue
        block = as_dict(block)
        kind = block.get("type")
        if kind in ("text", "input_text", "output_text") and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif kind in ("image", "input_image"):
            parts.append("[image]")
    return "\n".join(p for p in parts if p)


def bounded_output(text: str) -> str:
    """A tool result's text cut to MAX_TOOL_OUTPUT_CHARS with the serializer's truncation marker."""
    if len(text) <= MAX_TOOL_OUTPUT_CHARS:
        return text
    return f"{text[:MAX_TOOL_OUTPUT_CHARS].rstrip()}\n… [truncated {len(text) - MAX_TOOL_OUTPUT_CHARS} chars]"


def _shorten(value: Any) -> Any:
    if isinstance(value, str):
        if PATCH_BEGIN in value:
            return summarize_patch(value)
        if len(value) > MAX_ARGUMENT_CHARS:
            return value[:MAX_ARGUMENT_CHARS] + f"… [truncated {len(value) - MAX_ARGUMENT_CHARS} chars]"
        return value
    if isinstance(value, dict):
        return {str(k): _shorten(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shorten(v) for v in value]
    return value


def render_arguments(value: object) -> str:
    """Tool arguments as compact JSON (or the plain string), long strings shortened, patches summarized."""
    if isinstance(value, str):
        stripped = value.strip()
        if stripped.startswith(("{", "[")):
            try:
                return render_arguments(json.loads(stripped))
            except (ValueError, RecursionError):
                pass
        rendered = _shorten(value)
    else:
        try:
            rendered = json.dumps(_shorten(value), ensure_ascii=False, separators=(", ", ": "))
        except (TypeError, ValueError, RecursionError):
            rendered = str(value)
    return rendered[:MAX_RENDERED_ARGUMENTS]
