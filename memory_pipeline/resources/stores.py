"""The workspace's vector store: the Qdrant server at QDRANT_URL, else the embedded Edge shard
(`state/vectors/`), into which the former week stores (`state/qdrant/`) migrate on first open."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memory_pipeline.resources.edge_migration import WeekStoresMigration
from memory_pipeline.resources.edge_store import EdgeStore
from memory_pipeline.resources.vector_shards import ShardedStore
from memory_pipeline.resources.workspace import STATE_NAMES

if TYPE_CHECKING:
    from memory_pipeline.resources.vector_store import VectorStore


def workspace_store(state: Path, url: str | None, *, dimension: int, api_key: str | None = None,
                    collection: str = "memory", lock_timeout: float = 60.0) -> VectorStore | EdgeStore:
    """The store of a workspace's `state/` folder: the Qdrant server at `url`, else the workspace's
    Qdrant Edge shard."""
    generation = Path(state) / STATE_NAMES["index_generation"]
    if url:
        from memory_pipeline.resources.vector_store import VectorStore  # qdrant-client: ~1 s to import

        return VectorStore(path=None, url=url, api_key=api_key, collection=collection, dimension=dimension,
                           lock_timeout=lock_timeout, generation_file=generation)
    migration = WeekStoresMigration(legacy_store(state, dimension=dimension, lock_timeout=lock_timeout))
    return EdgeStore(Path(state) / STATE_NAMES["vectors"], dimension=dimension, lock_timeout=lock_timeout,
                     generation_file=generation, migration=migration)


def legacy_store(state: Path, *, dimension: int, lock_timeout: float = 60.0) -> ShardedStore:
    """The week stores of the former local mode (`state/qdrant/`), which the migration reads."""
    return ShardedStore(Path(state) / STATE_NAMES["qdrant"], dimension=dimension, lock_timeout=lock_timeout,
                        generation_file=Path(state) / STATE_NAMES["index_generation"])
