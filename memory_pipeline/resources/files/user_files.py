"""Writing files a person edits too (MEMORY.md, REVIEW.md) without losing their save or ours.

An editor saves in place (truncate, write: a reader can catch the file empty or half written)
or by renaming a new file over the old one. A plain read-then-rename loses whichever save lands
between the read and the rename. Here the new text is swapped in with one atomic exchange
(path_exchange.py; os.replace where there is none), which leaves the displaced file under the
temp name: if it is not exactly the file we read (another inode: a rename-style save; other
bytes: an in-place save), its text is the newest, it is put back and the change is merged into it.

No fixed wait decides when an in-place save is over: every read waits until no process has the
file open for writing (a Linux read lease, file_leases.py). So the base is never a save caught
half done, and the displaced file is compared only once every save that had it open before the
exchange has closed it, however long that editor was descheduled. The path is then read back
the same way and must still hold every line of the base and every line the change added, and
the displaced file, still held open, is looked at once more: a save whose open() found the old
file just before the exchange but began writing only after the first look is merged too. (Only
an open() still between its name lookup and its write access when that last look is taken can
escape: a window inside one system call.) Where leases are unsupported, reads fall back to two
reads agreeing and the displaced file is read again after SETTLE_SECONDS: a slower save is lost.

Bytes that are not UTF-8 are kept (surrogateescape) so a bad byte never costs its line.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from memory_pipeline.errors import ServiceError
from memory_pipeline.resources.files.file_leases import WriterStillOpen, read_when_quiet
from memory_pipeline.resources.files.path_exchange import exchange
from memory_pipeline.resources.workspace import FILE_MODE, check_disk_space, ensure_dir

ATTEMPTS = 20
SETTLE_SECONDS = 0.02  # without leases: an in-place save that had the old file open lands within this
WRITER_WAIT_SECONDS = 10.0  # a save that keeps the file open longer stops the update


def decode(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def displayable(text: str) -> str:
    """Kept bad bytes (lone surrogates) shown as U+FFFD, so the text prints and encodes."""
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")


def encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


@dataclass
class Snapshot:
    text: str | None  # None: no file
    inode: int | None


def read_snapshot(path: Path) -> Snapshot:
    try:
        with path.open("rb") as handle:
            return Snapshot(decode(handle.read()), os.fstat(handle.fileno()).st_ino)
    except FileNotFoundError:
        return Snapshot(None, None)


def _temp_with(path: Path, text: str) -> Path:
    ensure_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".swap", dir=path.parent)
    with os.fdopen(fd, "wb") as handle:
        handle.write(encode(text))
        handle.flush()
        check_disk_space(path)
        os.fsync(handle.fileno())
    os.chmod(tmp, FILE_MODE)
    return Path(tmp)


def read_settled(path: Path) -> Snapshot:
    """The file with no in-place save half done in it (see the module docstring)."""
    try:
        with path.open("rb") as handle:
            data = read_when_quiet(handle, WRITER_WAIT_SECONDS, path.name)
            if data is not None:
                return Snapshot(decode(data), os.fstat(handle.fileno()).st_ino)
    except FileNotFoundError:
        return Snapshot(None, None)
    return read_stable(path)


def read_stable(path: Path, tries: int = 50) -> Snapshot:
    """The file once two reads a moment apart agree (an in-place save is not caught half written)."""
    first = read_snapshot(path)
    for _ in range(tries):
        time.sleep(0.002)
        second = read_snapshot(path)
        if second == first:
            return second
        first = second
    return first


def _read_all(handle: BinaryIO) -> bytes:
    handle.seek(0)
    return handle.read()


def _final(handle: BinaryIO, name: str, settle_unless: Snapshot | None = None) -> Snapshot:
    """What the open (displaced) file holds once no save has it open; without leases, read again
    after a settle when it still equals `settle_unless`."""
    data = read_when_quiet(handle, WRITER_WAIT_SECONDS, name)
    if data is None:  # no leases: a save into it shows within the settle, or is lost
        data = _read_all(handle)
        if settle_unless is not None and decode(data) == settle_unless.text:
            time.sleep(SETTLE_SECONDS)
            data = _read_all(handle)
    return Snapshot(decode(data), os.fstat(handle.fileno()).st_ino)


def _swap_in(path: Path, tmp: Path, current: Snapshot) -> tuple[Snapshot, BinaryIO | None]:
    """Put `tmp` at `path`; returns what was displaced, read once no save has it open, and (when it
    is `current`) the displaced file still open for a last look. One that is not `current` (a save
    we did not see) is put straight back, so no reader sees our stale-based text for long."""
    ours = os.stat(tmp).st_ino
    if current.inode is None or not exchange(tmp, path):
        displaced = read_snapshot(path)
        if displaced == current:
            os.replace(tmp, path)
        return displaced, None
    held = tmp.open("rb")
    try:
        displaced = _final(held, path.name, settle_unless=current)
    except WriterStillOpen:
        held.close()
        _put_back(path, tmp, ours)
        raise
    if displaced == current:
        return displaced, held
    held.close()
    _put_back(path, tmp, ours)
    return displaced, None


def _put_back(path: Path, tmp: Path, ours: int) -> None:
    """Swap the displaced file back to `path`, unless a rename-style save replaced ours meanwhile:
    that one is newer still and stays."""
    exchange(tmp, path)
    if os.stat(tmp).st_ino != ours:
        os.replace(tmp, path)


def _write(path: Path, text: str, current: Snapshot) -> tuple[Snapshot, Snapshot]:
    """Swap `text` in: (what the displaced file finally holds, what the path holds afterwards). The
    displaced file is looked at again after the path is read back: a save whose open found the old
    file just before the swap but began writing only after the first look lands there."""
    tmp = _temp_with(path, text)
    try:
        displaced, held = _swap_in(path, tmp, current)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    try:
        written = read_settled(path)
        return (displaced if held is None else _final(held, path.name)), written
    finally:
        if held is not None:
            held.close()


def _missing(lines_from: str, text: str) -> list[str]:
    remaining: dict[str, int] = {}
    for line in text.splitlines():
        remaining[line] = remaining.get(line, 0) + 1
    lost = []
    for line in lines_from.splitlines():
        if line.strip() and remaining.get(line, 0) <= 0:
            lost.append(line)
        elif line.strip():
            remaining[line] -= 1
    return lost


def _added(before: str, after: str) -> str:
    return "\n".join(_missing(after, before))


def _merged(written: str, theirs: str) -> str:
    """`written` with the lines only `theirs` has appended: no line of either is lost."""
    extra = _missing(theirs, written)
    return written + ("\n" if written and not written.endswith("\n") and extra else "") + "".join(
        f"{line}\n" for line in extra)


def update_user_file(path: Path, change: Callable[[str], str], *, empty: str = "") -> tuple[str, str]:
    """(base, result) of applying `change` to the file's newest text; see the module docstring.
    Call it under the file's lock (that orders this pipeline's own writers; a person's editor is
    handled by the swap). Raises ServiceError when the file keeps changing or a writer keeps it open."""
    current = read_settled(path)
    base = current.text if current.text is not None else empty
    for _ in range(ATTEMPTS):
        after = change(base)
        if after == (current.text if current.text is not None else empty):
            return base, after
        displaced, written = _write(path, after, current)
        text = written.text if written.text is not None else empty
        if displaced == current:
            if not _missing(base, text) and not _missing(_added(base, after), text):
                return base, after
            base = text  # replaced after our swap: merge into that
        elif written.text == after:  # a save went into the displaced file after the swap: merge into it
            base = displaced.text if displaced.text is not None else empty
        else:  # a save we did not see is back at the path (or saves went both ways: keep every line)
            base = _merged(text, displaced.text or "")
        current = written
    raise ServiceError(f"{path.name} kept changing while it was being updated ({ATTEMPTS} tries); nothing "
                       "was lost, but the update is not done: try again")


def replace_if_unchanged(path: Path, text: str, expected: str | None) -> bool:
    """Write `text` unless the file no longer holds `expected` (None: whatever it holds); a save
    that lands during the swap is put back and the write reported as not done."""
    current = read_settled(path)
    if expected is not None and current.text is not None and displayable(current.text) != displayable(expected):
        return False
    if current.text == text:
        return True
    displaced, written = _write(path, text, current)
    if displaced == current:
        return True
    if displaced.text is not None and written.text == text:  # saved into the old file after the swap
        os.replace(_temp_with(path, displaced.text), path)
    return False
