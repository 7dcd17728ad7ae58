"""Reading a transcript file's lines within limits, keeping what can be kept and saying what was cut.

A session is never dropped whole for its size. A line over MAX_LINE_BYTES (a pasted dump, an image
inlined as base64) is passed over, read in chunks, never held. A transcript over its byte limit (64 MB)
is read from its newest part: the lines of its last `max_bytes`, and its first line when that is short
(the session's header: pi's and Codex's session line). `Cut` counts what was passed over and says it
in one line, for the command's output and the event's record.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024  # read of one transcript (its newest part when it is larger)
MAX_LINE_BYTES = 8 * 1024 * 1024
MAX_HEADER_BYTES = 256 * 1024  # a first line kept from the part of a big transcript that is not read
HEAD_LINE_BYTES = 1024 * 1024  # lines longer than this are passed over when a format is told from the head
READ_CHUNK = 1 << 20
MB = 1024 * 1024


@dataclass
class Cut:
    long_lines: int = 0
    long_bytes: int = 0
    old_bytes: int = 0  # the oldest part of a transcript over its limit, not read
    limit: int = 0

    def describe(self) -> str | None:
        parts = []
        if self.old_bytes:
            parts.append(f"the oldest {_mb(self.old_bytes)} not read (over the {_mb(self.limit)} limit: "
                         "the newest part was)")
        if self.long_lines:
            parts.append(f"{self.long_lines} line(s) over {_mb(MAX_LINE_BYTES)} passed over ({_mb(self.long_bytes)})")
        return "; ".join(parts) or None


def _mb(size: int) -> str:
    return f"{size / MB:.1f} MB" if size >= MB // 10 else f"{size:,} bytes"


def file_lines(path: Path, start: int = 0, end: int | None = None, cut: Cut | None = None,
               max_line: int = MAX_LINE_BYTES) -> Iterator[bytes]:
    """The lines of `path` in [start, end) (`start` a line's start; `end` after a newline or the end), each
    with its newline; a line over `max_line` bytes is passed over whole and counted in `cut`."""
    with path.open("rb") as handle:
        handle.seek(start)
        left = (path.stat().st_size if end is None else end) - start
        while left > 0:
            line = handle.readline(min(left, max_line + 1))
            if not line:
                return
            left -= len(line)
            if len(line) <= max_line or line.endswith(b"\n"):
                yield line
                continue
            passed = len(line)
            while left > 0 and not line.endswith(b"\n"):
                line = handle.readline(min(left, READ_CHUNK))
                if not line:
                    break
                left -= len(line)
                passed += len(line)
            if cut is not None:
                cut.long_lines += 1
                cut.long_bytes += passed


def line_start_at_or_after(path: Path, offset: int) -> int:
    """The start of the first line that begins at `offset` or later (the end of the file when none does)."""
    if offset <= 0:
        return 0
    with path.open("rb") as handle:
        handle.seek(offset - 1)
        if handle.read(1) == b"\n":
            return offset
        while block := handle.read(READ_CHUNK):
            newline = block.find(b"\n")
            if newline >= 0:
                return handle.tell() - len(block) + newline + 1
    return path.stat().st_size


def header_end(path: Path) -> int:
    """Where the file's first line ends, when it is a short one (a session's header); 0 otherwise."""
    with path.open("rb") as handle:
        first = handle.readline(MAX_HEADER_BYTES + 1)
    return len(first) if first.endswith(b"\n") else 0


def newest_ranges(paths: list[Path], max_bytes: int, cut: Cut | None = None) -> list[tuple[Path, int, int]]:
    """The byte ranges of the files (a snapshot's parts, read as one file) to read: all of them when they
    hold `max_bytes` or less, else the first file's short first line and the lines of their last `max_bytes`
    (the rest counted in `cut`)."""
    sizes = [path.stat().st_size for path in paths]
    if sum(sizes) <= max_bytes:
        return [(path, 0, size) for path, size in zip(paths, sizes, strict=True)]
    skip, head = sum(sizes) - max_bytes, header_end(paths[0])
    ranges = [(paths[0], 0, head)] if head else []
    offset, read_from = 0, None
    for number, (path, size) in enumerate(zip(paths, sizes, strict=True)):
        if offset + size > skip:
            start = line_start_at_or_after(path, skip - offset) if offset < skip else 0
            start = max(start, head) if number == 0 else start
            read_from = offset + start if read_from is None else read_from
            ranges.append((path, start, size))
        offset += size
    if cut is not None:
        cut.old_bytes += (read_from if read_from is not None else offset) - head
        cut.limit = max_bytes
    return ranges


def head_text(paths: list[Path], lines: int = 50) -> str:
    """The first `lines` lines of the files in order, lines over HEAD_LINE_BYTES passed over (a pasted prompt
    of several MB on the first line does not hide the format the next lines show)."""
    kept: list[str] = []
    for path in paths:
        for line in file_lines(path, max_line=HEAD_LINE_BYTES):
            kept.append(line.decode("utf-8", errors="replace").rstrip("\r\n"))
            if len(kept) >= lines:
                return "\n".join(kept)
    return "\n".join(kept)
