"""One opener of the workspace's Edge shard at a time: Qdrant Edge lets one process open a shard
folder (its write-ahead log is locked), so every opener queues on a file lock beside the shard
(`state/vectors.lock`). Writers (maintain, a store move, the migration) hold it for the operations of
one session; an index step holds it for the whole step and lets go whenever another opener waits
(`EdgeStore.holding`). The recall service holds it between requests (resources/vectors/edge_recall.py) and
lets go when asked. An opener that finds the lock taken says so in the want file beside it
(`state/vectors.want`: its pid, rewritten at each ask), which the holding steps watch; with `ask` it
also asks the holders (those of this process, registered here, then the workspace's recall service
over its socket, `release`); then it waits, asking again each second (the service may have reopened
for a request in between), for at most its timeout. `scrolled`: every record of an open shard, page by page.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from memory_pipeline.errors import StoreLockedError
from memory_pipeline.resources.daemons.recall_service import listening_path, request
from memory_pipeline.resources.workspace import atomic_write_text

_HOLDERS: dict[str, list[Callable[[], object]]] = {}
_HOLDERS_LOCK = threading.Lock()
ASK_EVERY = 1.0  # seconds between two asks while waiting


def lock_path(shard: Path) -> Path:
    return shard.parent / f"{shard.name}.lock"


def want_path(shard: Path) -> Path:
    return shard.parent / f"{shard.name}.want"


def say_wanted(shard: Path) -> None:
    """Tell a holding step that this process waits for the shard (`wanted_by` reads it)."""
    with contextlib.suppress(OSError):
        atomic_write_text(want_path(shard), f"{os.getpid()} {time.time_ns()}\n")


def wanted_by(shard: Path) -> str:
    """The last ask written to the want file ("" when none): the asker's pid and when."""
    try:
        return want_path(shard).read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def register_holder(shard: Path, release: Callable[[], object]) -> None:
    """`release()` lets this process's long hold of the shard go when another opener needs it."""
    with _HOLDERS_LOCK:
        _HOLDERS.setdefault(str(shard), []).append(release)


def unregister_holder(shard: Path, release: Callable[[], object]) -> None:
    with _HOLDERS_LOCK:
        holders = _HOLDERS.get(str(shard), [])
        if release in holders:
            holders.remove(release)


def ask_holders(shard: Path) -> None:
    """Ask whoever holds the shard between requests to let it go: this process's holders, then the
    workspace's recall service (a service that does not answer is left to the lock's timeout)."""
    with _HOLDERS_LOCK:
        holders = list(_HOLDERS.get(str(shard), []))
    for release in holders:
        release()

    with contextlib.suppress(OSError, ValueError):
        path = Path(listening_path(shard.parent).read_text(encoding="utf-8").strip())
        if path.is_socket():
            with contextlib.suppress(Exception):
                request(path, {"op": "release"}, timeout=5.0)


@contextlib.contextmanager
def shard_lock(shard: Path, timeout: float, ask: bool = True) -> Iterator[None]:
    """Hold the shard's file lock for the block; StoreLockedError after `timeout` seconds of waiting.
    A taken lock is said in the want file each second of the wait (`say_wanted`); with `ask`, its long
    holders are also asked to let go (`ask_holders`)."""
    shard.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(lock_path(shard)))
    deadline, first = time.monotonic() + timeout, True
    while True:
        left = deadline - time.monotonic()
        wait = 0.0 if first else min(left, ASK_EVERY)
        try:
            lock.acquire(timeout=max(0.0, wait))
            break
        except Timeout as exc:
            first = False
            say_wanted(shard)
            if time.monotonic() >= deadline:
                raise StoreLockedError(
                    f"vector shard {shard} stayed locked by another process for {timeout:.0f}s "
                    f"(lock file {lock.lock_file}); wait for it to finish or raise MEMORY_QDRANT_LOCK_TIMEOUT"
                ) from exc
            if ask:
                ask_holders(shard)
    try:
        yield
    finally:
        lock.release()


def scroll_pages(shard, **request) -> Iterator[list[Any]]:
    """The pages of records an open `shard`'s scroll gives, one after another (`request`: ScrollRequest's
    fields but the offset)."""
    from qdrant_edge import ScrollRequest

    offset = None
    while True:
        found, offset = shard.scroll(ScrollRequest(offset=offset, **request))
        if found:
            yield list(found)
        if offset is None:
            return


def scrolled(shard, **request) -> Iterator[Any]:
    """Every record an open `shard`'s scroll gives, page after page."""
    for page in scroll_pages(shard, **request):
        yield from page
