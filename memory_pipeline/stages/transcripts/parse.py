"""parse_transcript: read a file (or raw text), check it, detect its format and parse it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memory_pipeline.errors import BadInputError, EmptyTranscriptError
from memory_pipeline.models import Transcript, content_hash, stable_id
from memory_pipeline.stages.transcripts.claude_code import parse_claude_code
from memory_pipeline.stages.transcripts.codex import parse_codex
from memory_pipeline.stages.transcripts.detect import detect_format, looks_like_jsonl
from memory_pipeline.stages.transcripts.files import files_touched
from memory_pipeline.stages.transcripts.pi import parse_pi
from memory_pipeline.stages.transcripts.text import parse_text

PARSERS: dict[str, Callable[[str], Transcript]] = {
    "claude-code": parse_claude_code,
    "pi": parse_pi,
    "codex": parse_codex,
    "text": parse_text,
}
HEAD_LINES = 50
MAX_REPLACEMENT_SHARE = 0.1  # more undecodable characters than this and the input is binary
PARSE_ERRORS = (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError)


def _decode(data: bytes, where: str) -> str:
    if b"\x00" in data:
        raise BadInputError(f"{where} is binary (contains NUL bytes)")
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    if not text.strip():
        raise BadInputError(f"{where} is empty")
    if text.count("\ufffd") > len(text) * MAX_REPLACEMENT_SHARE:
        raise BadInputError(f"{where} is binary (not UTF-8 text)")
    return text


def _read(source: Path | str, max_bytes: int) -> tuple[str, str, str | None]:
    """(text, a description for messages, a fallback session id)."""
    if isinstance(source, str) and "\n" in source:
        data = source.encode("utf-8", errors="replace")
        if len(data) > max_bytes:
            raise BadInputError(f"transcript text is {len(data)} bytes, over the {max_bytes}-byte limit")
        return _decode(data, "transcript text"), "transcript text", None
    try:
        path = Path(source)
        if not path.is_file():
            raise BadInputError(f"transcript not found: {path}" if not path.exists() else f"not a file: {path}")
        size = path.stat().st_size
        if size > max_bytes:
            raise BadInputError(f"transcript {path} is {size} bytes, over the {max_bytes}-byte limit")
        data = path.read_bytes()
    except (OSError, TypeError, ValueError) as exc:
        raise BadInputError(f"cannot read transcript {source!r}: {exc}") from None
    where = f"transcript {path}"
    return _decode(data, where), where, path.stem or None


def parse_transcript(
    source: Path | str,
    *,
    format: str = "auto",
    session_id: str | None = None,
    max_bytes: int = 64 * 1024 * 1024,
) -> Transcript:
    """Parse a transcript file, or raw text when `source` is a str containing a newline.

    Raises BadInputError (and nothing else) for input that cannot be used; single bad lines in
    an otherwise good JSONL file are skipped.
    """
    if format != "auto" and format not in PARSERS:
        raise BadInputError(f"unknown transcript format {format!r}; expected auto, {', '.join(PARSERS)}")
    text, where, fallback_id = _read(source, max_bytes)
    head = "\n".join(text.split("\n", HEAD_LINES)[:HEAD_LINES])
    chosen = detect_format(head) if format == "auto" else format
    if format == "auto" and chosen == "text" and looks_like_jsonl(head):
        raise BadInputError(f"{where} is JSON lines but not a Claude Code, pi or Codex transcript")
    try:
        transcript = PARSERS[chosen](text)
    except PARSE_ERRORS as exc:
        raise BadInputError(f"could not parse {where} as {chosen}: {exc}") from exc
    if not transcript.messages:
        raise EmptyTranscriptError(f"{where} has no usable {chosen} messages")
    read, modified = files_touched(transcript.messages)
    return transcript.model_copy(update={
        "session_id": session_id or transcript.session_id or fallback_id or stable_id("text", content_hash(text)),
        "files_read": read,
        "files_modified": modified,
    })
