"""A workspace's former local-mode week stores (`state/qdrant/<week>/`) moved into its Edge shard,
by itself, on the shard's first open; and a store's points copied to another store (`store move`).

The migration copies every point (vectors and payload as stored) into `state/vectors.migrating/`,
verifies that every id is there with its content hash, renames the new shard into place, and only
then renames the old stores aside (`state/qdrant.before-edge/`, kept). Each step is a rename or an
idempotent upsert, so a run killed at any point leaves a state the next open completes: a partial
`vectors.migrating/` is filled up (points already copied with the same hash are skipped), a shard
renamed into place while the old stores are still there is verified again before they move aside.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from memory_pipeline.errors import ServiceError
from memory_pipeline.models import StorePoint, content_hash
from memory_pipeline.resources.vectors.edge_payloads import table_path
from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.resources.vectors.vector_shards import ShardedStore, has_week_stores

CHUNK = 1024
MIGRATING = ".migrating"
KEPT = ".before-edge"


def chunks(points: Iterator[StorePoint], size: int = CHUNK) -> Iterator[list[StorePoint]]:
    batch: list[StorePoint] = []
    for point in points:
        batch.append(point)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def copy_points(source, target) -> int:
    """Every point of `source` written to `target` unless it is already there with the same content
    hash; the number written. Vectors and payloads go as stored (nothing is embedded again)."""
    written = 0
    for batch in chunks(source.scroll_all(with_vectors=True)):
        hashes = {p.id: content_hash(p.text) for p in batch}
        wanted = target.missing_or_changed(hashes)
        fresh = [p.model_copy(update={"payload": {k: v for k, v in p.payload.items()
                                                   if k not in ("text", "content_hash")}})
                 for p in batch if p.id in wanted]
        if fresh:
            target.upsert(fresh)
            written += len(fresh)
    return written


def unverified(source, target) -> int:
    """How many of `source`'s points `target` lacks, or holds with another content hash."""
    missing = 0
    for batch in chunks(source.scroll_all()):
        missing += len(target.missing_or_changed({p.id: content_hash(p.text) for p in batch}))
    return missing


class WeekStoresMigration:
    """The former week stores (a `ShardedStore`) moved into an Edge shard; EdgeStore runs it under
    the shard's lock before each open while `pending()`."""

    def __init__(self, legacy: ShardedStore) -> None:
        self.legacy = legacy

    def pending(self) -> bool:
        return has_week_stores(self.legacy.path)

    def run(self, shard_path: Path, *, dimension: int, lock_timeout: float) -> bool:
        """Move the week stores into the shard at `shard_path` (see the module's doc); True when a
        migration ran. The caller holds the shard's lock."""
        if not self.pending():
            return False
        legacy = self.legacy.path
        staging = shard_path.with_name(shard_path.name + MIGRATING)
        target_path = shard_path if shard_path.exists() else staging
        target = EdgeStore(target_path, dimension=dimension, lock_timeout=lock_timeout,
                           generation_file=self.legacy.generation_file, locked=True)
        with target.session():
            copy_points(self.legacy, target)
            missing = unverified(self.legacy, target)
            if missing:
                raise ServiceError(f"migrating {legacy} into {shard_path}: {missing} points did not verify; "
                                   "the old stores are kept, run again")
            target.optimize()
        if target_path == staging:
            target.table.move_to(table_path(shard_path))  # before the shard: a kill between, the next open
            staging.rename(shard_path)  # finds no shard and migrates again into a new staging folder
            stats = EdgeStore(shard_path, dimension=dimension).keyword_stats.path
            if target.keyword_stats.path.exists():  # killed before this, the next open re-keys the shard
                target.keyword_stats.path.replace(stats)
        kept = legacy.with_name(legacy.name + KEPT)
        n = 1
        while kept.exists():
            n += 1
            kept = legacy.with_name(f"{legacy.name}{KEPT}-{n}")
        legacy.rename(kept)
        return True
