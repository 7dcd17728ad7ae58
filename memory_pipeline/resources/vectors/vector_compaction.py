"""Compaction of the vector store (nightly maintenance): what merged memories and rewrites leave.

Qdrant local mode keeps a collection in one SQLite file (`<store>/collection/<name>/storage.sqlite`,
one row per point) that never shrinks: a deleted point, a dropped vector or a payload rewritten
(maintenance rewrites payloads every night) leaves free pages behind. So maintenance
- drops the dense and sparse vectors of memories merged into another: they are never searched, and
  their sparse vectors would keep counting in the keyword (IDF) statistics as second copies;
- vacuums a week store once its free pages pass VACUUM_SHARE of the file (SQLite's VACUUM rewrites
  the file in one transaction: a killed run leaves the old file);
- removes week stores that hold no point (every reader that spans weeks opens each one).
A Qdrant server compacts its own segments (its optimizers), so only the vectors are dropped there;
the embedded Edge shard runs the same optimizers in-process (`optimize()`).
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from dataclasses import dataclass

from qdrant_client import QdrantClient

from memory_pipeline.ports import ShardedIndex
from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.resources.vectors.vector_store import StorePoint, VectorStore
from memory_pipeline.resources.workspace import folder_bytes

VACUUM_SHARE = 0.1  # free pages over this share of the file: vacuum (wasted space stays under ~10%)
STORAGE_FILE = "storage.sqlite"  # qdrant_client.local.persistence.STORAGE_FILE_NAME


@dataclass
class Compaction:
    vectors_dropped: int = 0
    stores_vacuumed: int = 0
    stores_removed: int = 0
    bytes_reclaimed: int = 0


def drop_merged_vectors(store: ShardedIndex, merged: dict[str, StorePoint]) -> int:
    """The vectors of the points folded into another memory (`merged`, read with their vectors)
    that still have some; how many. One call per store their days fall in (the Edge shard holds every day)."""
    by_store: dict[str, tuple[ShardedIndex, list[str]]] = {}  # by where the store is: a week store is made anew per call
    for pid, point in merged.items():
        if point.dense is not None or point.sparse is not None:
            shard = store.for_day(str(point.payload.get("date")))
            by_store.setdefault(shard.where(), (shard, []))[1].append(pid)
    for shard, ids in by_store.values():
        shard.delete_vectors(sorted(ids))
    return sum(len(ids) for _, ids in by_store.values())


def vacuum(shard: VectorStore, share: float = VACUUM_SHARE) -> int:
    """Rewrite the store's SQLite file without its free pages when they pass `share`; bytes freed."""
    with shard.closed() as folder:
        file = folder / "collection" / shard.collection / STORAGE_FILE if folder is not None else None
        if file is None or not file.is_file():
            return 0
        before = file.stat().st_size
        with contextlib.closing(sqlite3.connect(file)) as db:
            free, pages = (db.execute(f"PRAGMA {name}").fetchone()[0] for name in ("freelist_count", "page_count"))
            if not free or free < share * pages:
                return 0
            db.execute("VACUUM")
        return before - file.stat().st_size


def remove_if_empty(shard: VectorStore) -> int:
    """Delete the store's folder when it holds no point; the bytes freed (0 when it is kept)."""
    with shard.closed() as folder:
        if folder is None or not folder.is_dir():
            return 0
        try:
            client = QdrantClient(path=str(folder))
        except RuntimeError:  # held open by a process outside memory-pipeline's lock: leave it
            return 0
        try:
            empty = (not client.collection_exists(shard.collection)
                     or client.count(shard.collection, exact=True).count == 0)
        finally:
            client.close()
        if not empty:
            return 0
        freed = folder_bytes(folder)
        shutil.rmtree(folder)
    shard.bump_generation()
    return freed


def compact_store(store: ShardedIndex, merged: dict[str, StorePoint]) -> Compaction:
    """Vectors of merged memories dropped, then the Edge shard optimized (its vacuum optimizer
    rewrites segments full of deleted points), or each local week store emptied of free pages or removed."""
    report = Compaction(vectors_dropped=drop_merged_vectors(store, merged))
    for shard in store.shards():
        if shard.path is None:
            continue
        if isinstance(shard, EdgeStore):
            before = folder_bytes(shard.path)
            if shard.optimize():
                report.stores_vacuumed += 1
                report.bytes_reclaimed += max(before - folder_bytes(shard.path), 0)
            continue
        removed = remove_if_empty(shard)
        if removed:
            report.stores_removed += 1
            report.bytes_reclaimed += removed
            continue
        freed = vacuum(shard)
        report.stores_vacuumed += freed > 0
        report.bytes_reclaimed += max(freed, 0)
    return report
