"""The workspace's vector store: the Qdrant server at QDRANT_URL, else the embedded Edge shard
(`state/vectors/`), into which the former week stores (`state/qdrant/`) migrate on first open."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from memory_pipeline.resources.vectors.edge_migration import WeekStoresMigration
from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.resources.vectors.vector_shards import ShardedStore
from memory_pipeline.resources.workspace import STATE_NAMES

if TYPE_CHECKING:
    from memory_pipeline.resources.vectors.vector_store import VectorStore


def workspace_store(state: Path, url: str | None, *, dimension: int, api_key: str | None = None,
                    collection: str = "memory", lock_timeout: float = 60.0) -> VectorStore | EdgeStore:
    """The store of a workspace's `state/` folder: the Qdrant server at `url`, else the workspace's
    Qdrant Edge shard."""
    generation = Path(state) / STATE_NAMES["index_generation"]
    if url:
        from memory_pipeline.resources.vectors.vector_store import VectorStore  # noqa: PLC0415 — qdrant-client: ~1 s to import

        return VectorStore(path=None, url=url, api_key=api_key, collection=collection, dimension=dimension,
                           lock_timeout=lock_timeout, generation_file=generation)
    shard = Path(state) / STATE_NAMES["vectors"]
    held = _HELD.get(shard.expanduser().resolve())
    if held is not None and held.dimension == dimension:  # a command holds it across its runs
        return held
    migration = WeekStoresMigration(legacy_store(state, dimension=dimension, lock_timeout=lock_timeout))
    return EdgeStore(shard, dimension=dimension, lock_timeout=lock_timeout, generation_file=generation,
                     migration=migration)


_HELD: dict[Path, EdgeStore] = {}  # the shards this process's commands hold across their runs (`held_for_runs`)


@contextlib.contextmanager
def held_for_runs(store: VectorStore | EdgeStore) -> Iterator[VectorStore | EdgeStore]:
    """Hold a workspace's store across a command's Dagster runs (ingest's days): their steps get this
    store from `workspace_store`, so the shard opens once for the command, not once per index step and
    day (1.5 s each at 1M points), and it lets go whenever another process waits (`EdgeStore.holding`).
    A server's store: one session for the runs."""
    if not isinstance(store, EdgeStore):
        with store.holding():
            yield store
        return
    _HELD[store.path] = store
    try:
        with store.holding():
            yield store
    finally:
        _HELD.pop(store.path, None)


def legacy_store(state: Path, *, dimension: int, lock_timeout: float = 60.0) -> ShardedStore:
    """The week stores of the former local mode (`state/qdrant/`), which the migration reads."""
    return ShardedStore(Path(state) / STATE_NAMES["qdrant"], dimension=dimension, lock_timeout=lock_timeout,
                        generation_file=Path(state) / STATE_NAMES["index_generation"])
