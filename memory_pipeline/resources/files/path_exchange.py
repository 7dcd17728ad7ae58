"""Swapping two paths in one atomic step: Linux renameat2(RENAME_EXCHANGE), through libc.

Both names stay valid throughout: a reader of either finds one whole file, never none. Where the
system or filesystem cannot exchange, `exchange` returns False and the caller replaces instead.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from pathlib import Path

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _renameat2():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return function


_EXCHANGE = _renameat2()


def exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically; False where the system cannot (or `b` does not exist)."""
    if _EXCHANGE is None:
        return False
    if _EXCHANGE(_AT_FDCWD, bytes(a), _AT_FDCWD, bytes(b), _RENAME_EXCHANGE) == 0:
        return True
    errno = ctypes.get_errno()
    if errno in (2, 22, 38, 95):  # ENOENT, EINVAL, ENOSYS, EOPNOTSUPP: no file yet or no support
        return False
    raise OSError(errno, os.strerror(errno), str(b))
