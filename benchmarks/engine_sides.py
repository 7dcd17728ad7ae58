"""The two engines of `bench engine`, each opened, queried and written the same way.

today: the workspace store (qdrant-client local mode, one store per ISO week) and the recall
service's in-memory index (`RecallIndex`, loaded through the recall cache), queried as the
service does: dense top 100 + BM25 top 100 within the project's mask, `fuse` (min-max, 0.4/0.6).
edge: one Qdrant Edge shard (`engine_edge`), its HNSW and sparse index searched for the same two
candidate lists (one batch, filtered by the payload index), then the same `fuse`.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks import engine_edge
from benchmarks.engine_data import Probe, Row
from memory_pipeline.stages.index.sparse import tokenize
from memory_pipeline.stages.recall.rank import RankOptions, RecallFilters, fuse

PREFETCH = 100
OPTIONS = RankOptions()


def top(dense: list[tuple[str, float]], sparse: list[tuple[str, float]], limit: int = 10) -> list[str]:
    fused = fuse(dense, sparse, OPTIONS)
    return sorted(fused, key=lambda pid: -fused[pid].score)[:limit]


# --- today ------------------------------------------------------------------------------

def today_workspace(root: Path):
    from memory_pipeline.config import set_process_environment
    from memory_pipeline.resources.workspace import Workspace

    set_process_environment(MEMORY_WORKSPACE=str(root))
    return Workspace(root)


def today_store(root: Path, dimension: int):
    """The week stores of qdrant-client local mode (`legacy_store`): the workspace's own store is the
    Edge shard since issue 28's move, so `open_store` would measure Edge on both sides."""
    from memory_pipeline.resources.vectors.stores import legacy_store

    return legacy_store(today_workspace(root).state, dimension=dimension)


def today_open(root: Path, dimension: int):
    """Today's recall service's index (before issue 28's move): from the recall cache when it is
    current, else the week stores."""
    from benchmarks.today_cache import load_columns
    from memory_pipeline.resources.vectors.recall_index import RecallIndex, generation_at, load_index

    workspace = today_workspace(root)
    generation = generation_at(workspace.state_path("index_generation"))
    cached = load_columns(workspace.state_path("recall_cache"), generation)
    if cached is not None:
        return RecallIndex.from_columns(*cached, generation=generation)
    return load_index(today_store(root, dimension))


def today_query(index, probe: Probe) -> list[str]:
    mask = index.mask(RecallFilters(project=probe.project))
    dense = index.dense_search(probe.dense, PREFETCH, mask)
    sparse = index.sparse_search(tokenize(probe.text), PREFETCH, mask)
    return top([(index.ids[r], s) for r, s in dense], [(index.ids[r], s) for r, s in sparse])


def today_write(store, batch: list[Row]) -> None:
    from memory_pipeline.resources.vectors.vector_store import StorePoint

    by_shard: dict[str, list] = {}
    for row in batch:
        by_shard.setdefault(row.payload["date"], []).append(row)
    weeks: dict[str, tuple] = {}
    for day, group in by_shard.items():
        shard = store.for_day(day)
        weeks.setdefault(shard.where(), (shard, []))[1].extend(group)
    for shard, group in weeks.values():
        with shard.session():
            shard.ensure_collection()
            shard.upsert([StorePoint(id=r.id, text=r.text, dense=r.dense.tolist(), sparse=r.sparse,
                                     payload={k: v for k, v in r.payload.items() if k != "text"}) for r in group])


def today_held(root: Path, dimension: int, ids: list[str]) -> int:
    return len(today_store(root, dimension).retrieve(ids))


# --- edge -------------------------------------------------------------------------------

def edge_points(batch: list[Row]):
    return [engine_edge.point(r.id, r.dense.tolist(), r.sparse, r.payload) for r in batch]


def edge_query(shard, probe: Probe) -> list[str]:
    dense, sparse = engine_edge.both_sides(shard, probe.dense.tolist(), probe.terms, probe.project, PREFETCH)
    return top(dense, sparse)


def edge_held(path: Path, ids: list[str]) -> int:
    from qdrant_edge import EdgeShard

    shard = EdgeShard.load(str(path))
    try:
        return len(shard.retrieve(ids, with_payload=False, with_vector=False))
    finally:
        shard.close()
