"""Reading a file while no other process has it open for writing: Linux read leases.

The kernel grants a read lease (fcntl F_SETLEASE, F_RDLCK) only while no process holds the file
open for writing, and while the lease is held a process that opens the file for writing (or
truncates it by name) waits in open() until the lease is released. So bytes read under the lease
are never an in-place save caught half done, and a lease granted on a file that was just swapped
away from its path proves that every in-place save which had it open is finished: its text is final.
A writer that keeps the file open is waited for, in short sleeps, up to a deadline.

Breaking a lease signals its holder, by default with SIGIO, which ends a process that does not
handle it. So each lease first names SIGURG (ignored unless handled) and, once granted, asks for no
signal at all (F_SETOWN 0); the holder never needs the signal, it releases the lease at once.

Where leases are unavailable (not Linux, a network filesystem, a file owned by another user
without CAP_LEASE, fs.leases-enable=0) `read_when_quiet` returns None and the caller falls back.
"""

from __future__ import annotations

import contextlib
import errno
import signal
import sys
import time
from collections.abc import Iterator
from typing import BinaryIO

from memory_pipeline.errors import ServiceError

LEASES = sys.platform.startswith("linux")
_UNSUPPORTED = {errno.EINVAL, errno.ENOLCK, errno.EACCES, errno.EPERM, errno.ENOSYS, errno.EOPNOTSUPP}

if LEASES:
    import fcntl


class WriterStillOpen(ServiceError):
    """Another process kept the file open for writing past the deadline."""


def _take_lease(fd: int) -> bool | None:
    """True: a read lease is held on `fd`; False: a process has the file open for writing;
    None: leases are not supported here."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)  # reset by every release, so set before each lease
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
    except OSError as exc:
        if exc.errno == errno.EAGAIN:
            return False
        if exc.errno in _UNSUPPORTED:
            return None
        raise
    fcntl.fcntl(fd, fcntl.F_SETOWN, 0)  # a writer breaking the lease now signals nobody
    return True


@contextlib.contextmanager
def leased(handle: BinaryIO, wait_seconds: float, name: str) -> Iterator[bool]:
    """Hold a read lease on the open `handle` for the block (True), waiting in short sleeps while
    another process has the file open for writing; False where leases are unsupported. Raises
    WriterStillOpen when a writer keeps it open longer than `wait_seconds`. Never open the file for
    writing inside the block: that open would wait for this very lease."""
    if not LEASES:
        yield False
        return
    give_up, pause = time.monotonic() + wait_seconds, 0.0005
    while (granted := _take_lease(handle.fileno())) is False:
        if time.monotonic() > give_up:
            raise WriterStillOpen(
                f"{name} has been held open for writing by another process for over {wait_seconds:g} s "
                "(an editor saving in place?): close it and try again")
        time.sleep(pause)
        pause = min(pause * 2, 0.01)
    if granted is None:
        yield False
        return
    try:
        yield True
    finally:
        fcntl.fcntl(handle.fileno(), fcntl.F_SETLEASE, fcntl.F_UNLCK)


def read_when_quiet(handle: BinaryIO, wait_seconds: float, name: str) -> bytes | None:
    """All of the open file, read under a read lease (no in-place save is half done in it); None
    where leases are unsupported."""
    with leased(handle, wait_seconds, name) as held:
        if not held:
            return None
        handle.seek(0)
        return handle.read()
