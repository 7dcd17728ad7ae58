"""One opener of the workspace's Edge shard at a time: Qdrant Edge lets one process open a shard
folder (its write-ahead log is locked), so every opener queues on a file lock beside the shard
(`state/vectors.lock`) and holds it only for the operations of one session. The recall service
does not hold it between requests: it reads what it serves (its index, resources/recall_index.py)
and lets go, so a writer never waits for recall. While a writer (ingest, maintain) holds the shard,
a cold recall service answers from the last recall cache instead of waiting (`shard_busy`), and
a warm one from the index it has; either reloads in the background once the writer is done.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from memory_pipeline.errors import StoreLockedError


def lock_path(shard: Path) -> Path:
    return shard.parent / f"{shard.name}.lock"


@contextlib.contextmanager
def shard_lock(shard: Path, timeout: float) -> Iterator[None]:
    """Hold the shard's file lock for the block; StoreLockedError after `timeout` seconds of waiting."""
    shard.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(lock_path(shard)))
    try:
        lock.acquire(timeout=timeout)
    except Timeout as exc:
        raise StoreLockedError(
            f"vector shard {shard} stayed locked by another process for {timeout:.0f}s "
            f"(lock file {lock.lock_file}); wait for it to finish or raise MEMORY_QDRANT_LOCK_TIMEOUT") from exc
    try:
        yield
    finally:
        lock.release()


def shard_busy(shard: Path) -> bool:
    """Another opener holds the shard's lock now (asked without waiting)."""
    path = lock_path(shard)
    if not path.exists():
        return False
    lock = FileLock(str(path))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return True
    lock.release()
    return False
