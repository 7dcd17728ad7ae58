"""Fault-injection points for the fault suite (memory_pipeline_tests/faults/). Inert unless set.

MEMORY_FAULT_PAUSE=<name>        `pause_point(name)` stops there: it creates the file named by
                                 MEMORY_FAULT_FLAG (if set), then sleeps MEMORY_FAULT_PAUSE_SECONDS
                                 (default an hour), so a test can kill -9 the process at a known
                                 point or break a service while the run waits.
MEMORY_FAULT_DISK_FULL=<text>    `check_disk_space(path)` raises ENOSPC for any atomic write whose
                                 target path contains <text> (the temp file is already written).

Points: observe:before-write, observe:after-write (flows/observations.py), index:before-upsert
(flows/indexing.py), promote:after-memory-write (flows/review/promote.py), review:before-log (flows/review/decisions.py:
after the status changes, before their daily-log lines).
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

_paused: set[str] = set()


def pause_point(name: str) -> None:
    """Pause the first time this process reaches `name` (see the module docstring)."""
    if os.environ.get("MEMORY_FAULT_PAUSE") != name or name in _paused:
        return
    _paused.add(name)
    flag = os.environ.get("MEMORY_FAULT_FLAG")
    if flag:
        Path(flag).write_text(f"{name} {os.getpid()}\n")
    time.sleep(float(os.environ.get("MEMORY_FAULT_PAUSE_SECONDS") or 3600))


def check_disk_space(path: Path) -> None:
    marker = os.environ.get("MEMORY_FAULT_DISK_FULL")
    if marker and marker in str(path):
        raise OSError(errno.ENOSPC, "No space left on device (injected by MEMORY_FAULT_DISK_FULL)", str(path))
