"""parse_transcript: read a file (or raw text), check it, detect its format and parse it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from memory_pipeline.errors import BadInputError, EmptyTranscriptError
from memory_pipeline.models import Transcript, content_hash, stable_id
from memory_pipeline.stages.transcripts.claude_code import parse_claude_code
from memory_pipeline.stages.transcripts.codex import parse_codex
from memory_pipeline.stages.transcripts.control import transcript_without_controls
from memory_pipeline.stages.transcripts.detect import detect_format, looks_like_jsonl
from memory_pipeline.stages.transcripts.files import files_touched
from memory_pipeline.stages.transcripts.lines import Cut, file_lines, head_text, newest_ranges
from memory_pipeline.stages.transcripts.pi import parse_pi
from memory_pipeline.stages.transcripts.text import parse_text

PARSERS: dict[str, Callable[..., Transcript]] = {
    "claude-code": parse_claude_code,
    "pi": parse_pi,
    "codex": parse_codex,
    "text": parse_text,
}
HEAD_LINES = 50
MAX_REPLACEMENT_SHARE = 0.1  # more undecodable characters than this and the input is binary
MAX_NUL_SHARE = 0.001  # a stray NUL byte is dropped; more than this share of the bytes and the input is binary
PARSE_ERRORS = (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError)
STREAM_OVER_BYTES = 8 * 1024 * 1024  # a JSONL file larger than this is parsed line by line, never held whole


def _binary_nuls(nuls: int, size: int) -> bool:
    """More NUL bytes than a stray one or two (MAX_NUL_SHARE of the bytes): a binary file, not a transcript."""
    return nuls > size * MAX_NUL_SHARE


class FileLines:
    """A file's lines decoded one at a time, with the checks `_decode` makes on a whole text: NUL bytes
    are dropped, and blank, undecodable or NUL-filled content is judged by `check` at the end (a NUL in
    every line fails at once). Over `max_bytes`, the newest part is read; a line over MAX_LINE_BYTES is
    passed over; `cut` says what was (stages/transcripts/lines.py)."""

    def __init__(self, path: Path | list[Path], where: str, max_bytes: int | None = None) -> None:
        self.paths, self.where = path if isinstance(path, list) else [path], where
        self.max_bytes = max_bytes
        self.chars = self.replaced = self.nuls = self.bytes = 0
        self.blank = True
        self.cut = Cut()

    def __iter__(self) -> Iterator[str]:
        self.chars = self.replaced = self.nuls = self.bytes = 0
        self.blank = True
        self.cut = Cut()
        number = 0
        limit = self.max_bytes if self.max_bytes is not None else sum(p.stat().st_size for p in self.paths)
        for path, start, end in newest_ranges(self.paths, limit, self.cut):  # a snapshot's parts: one file
            for raw in file_lines(path, start, end, self.cut):
                self.bytes += len(raw)
                if b"\x00" in raw:
                    self.nuls += raw.count(b"\x00")
                    if _binary_nuls(self.nuls, max(self.bytes, 64 * 1024)):
                        raise BadInputError(f"{self.where} is binary (contains NUL bytes)")
                    raw = raw.replace(b"\x00", b"")
                line = raw.decode("utf-8", errors="replace")
                if number == 0:
                    line = line.lstrip("\ufeff")
                number += 1
                self.chars += len(line)
                self.replaced += line.count("\ufffd")
                self.blank = self.blank and not line.strip()
                yield line.rstrip("\r\n")

    def check(self) -> None:
        if _binary_nuls(self.nuls, self.bytes):
            raise BadInputError(f"{self.where} is binary (contains NUL bytes)")
        if self.blank:
            raise BadInputError(f"{self.where} is empty")
        if self.replaced > self.chars * MAX_REPLACEMENT_SHARE:
            raise BadInputError(f"{self.where} is binary (not UTF-8 text)")


def _decode(data: bytes, where: str) -> str:
    if b"\x00" in data:
        if _binary_nuls(data.count(b"\x00"), len(data)):
            raise BadInputError(f"{where} is binary (contains NUL bytes)")
        data = data.replace(b"\x00", b"")  # a stray NUL in a text
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


def parse_parts(parts: list[Path], *, format: str, session_id: str | None = None,
                max_bytes: int = 64 * 1024 * 1024) -> Transcript:
    """Parse a snapshot stored in parts (resources/files/snapshots.py): their lines in order, as one file."""
    if len(parts) == 1:
        return parse_transcript(parts[0], format=format, session_id=session_id, max_bytes=max_bytes)
    where = f"transcript snapshot {parts[-1]}"
    if format not in PARSERS or format == "text":
        raise BadInputError(f"a snapshot in parts is JSON lines, not {format!r}")
    lines = FileLines(parts, where, max_bytes)  # over max_bytes: the newest part
    try:
        transcript = _run_parser(format, lines, where)
    except OSError as exc:
        raise BadInputError(f"cannot read {where}: {exc}") from None
    return _finish(transcript, session_id, lambda: None, lines.cut)


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
    if not isinstance(source, str) or "\n" not in source:
        streamed = _parse_streamed(Path(source), format, max_bytes)
        if streamed is not None:
            transcript, cut = streamed
            return _finish(transcript, session_id, lambda: Path(source).stem or None, cut)
    text, where, fallback_id = _read(source, max_bytes)
    head = "\n".join(text.split("\n", HEAD_LINES)[:HEAD_LINES])
    chosen = detect_format(head) if format == "auto" else format
    if format == "auto" and chosen == "text" and looks_like_jsonl(head):
        raise BadInputError(f"{where} is JSON lines but not a Claude Code, pi or Codex transcript")
    transcript = _run_parser(chosen, text, where)
    return _finish(transcript, session_id, lambda: fallback_id or stable_id("text", content_hash(text)))


def _run_parser(chosen: str, lines: str | FileLines, where: str) -> Transcript:
    try:
        transcript = PARSERS[chosen](lines)
    except PARSE_ERRORS as exc:
        raise BadInputError(f"could not parse {where} as {chosen}: {exc}") from exc
    if isinstance(lines, FileLines):
        lines.check()
    if not transcript.messages:
        raise EmptyTranscriptError(f"{where} has no usable {chosen} messages")
    return transcript


def _finish(transcript: Transcript, session_id: str | None, fallback: Callable[[], str | None],
            cut: Cut | None = None) -> Transcript:
    transcript = transcript_without_controls(transcript)
    read, modified = files_touched(transcript.messages)
    return transcript.model_copy(update={
        "session_id": session_id or transcript.session_id or fallback(),
        "files_read": read,
        "files_modified": modified,
        "cut": cut.describe() if cut else None,
    })


def _parse_streamed(path: Path, format: str, max_bytes: int) -> tuple[Transcript, Cut] | None:
    """A large JSONL file parsed as it is read (its newest `max_bytes` when it is larger), with what was cut;
    None when it is small, text, or not a file."""
    try:
        size = path.stat().st_size if path.is_file() else 0
    except (OSError, ValueError):
        return None
    if size <= STREAM_OVER_BYTES and size <= max_bytes:
        return None  # small files (and errors) take the whole-text path
    where = f"transcript {path}"
    try:
        head = head_text([path], HEAD_LINES)
    except OSError as exc:
        raise BadInputError(f"cannot read transcript {str(path)!r}: {exc}") from None
    chosen = detect_format(head) if format == "auto" else format
    if chosen == "text":
        if size > max_bytes:
            raise BadInputError(f"{where} is {size} bytes of plain text, over the {max_bytes}-byte limit "
                                "(only a JSON lines transcript is read in part)")
        return None
    lines = FileLines(path, where, max_bytes)
    return _run_parser(chosen, lines, where), lines.cut
