"""One opener of the workspace's Edge shard at a time: Qdrant Edge lets one process open a shard
folder (its write-ahead log is locked), so every opener queues on a file lock beside the shard
(`state/vectors.lock`). Writers (ingest, maintain, a store move, the migration) hold it for the
operations of one session. The recall service holds it between requests (resources/edge_recall.py)
and lets go when asked: an opener that finds the lock taken asks the holders first (those of this
process, registered here, then the workspace's recall service over its socket, `release`), then
waits, asking again each second (the service may have reopened for a request in between), for at
most its timeout.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from memory_pipeline.errors import StoreLockedError

_HOLDERS: dict[str, list[Callable[[], object]]] = {}
_HOLDERS_LOCK = threading.Lock()
ASK_EVERY = 1.0  # seconds between two asks while waiting


def lock_path(shard: Path) -> Path:
    return shard.parent / f"{shard.name}.lock"


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
    from memory_pipeline.resources.recall_service import listening_path, request

    with contextlib.suppress(OSError, ValueError):
        path = Path(listening_path(shard.parent).read_text(encoding="utf-8").strip())
        if path.is_socket():
            with contextlib.suppress(Exception):
                request(path, {"op": "release"}, timeout=5.0)


@contextlib.contextmanager
def shard_lock(shard: Path, timeout: float, ask: bool = True) -> Iterator[None]:
    """Hold the shard's file lock for the block; StoreLockedError after `timeout` seconds of waiting.
    With `ask`, a taken lock makes its long holders let go (`ask_holders`)."""
    shard.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(lock_path(shard)))
    deadline, first = time.monotonic() + timeout, True
    while True:
        left = deadline - time.monotonic()
        wait = (0.0 if first else min(left, ASK_EVERY)) if ask else left
        try:
            lock.acquire(timeout=max(0.0, wait))
            break
        except Timeout as exc:
            first = False
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
