"""Qdrant Edge (`qdrant_edge`, the Qdrant engine in-process) for `bench engine`: one shard with
the store's layout (dense "dense" cosine + sparse "bm25" with IDF, a keyword index on "project")
and the recall's query shape (dense top 100 + BM25 top 100, fused, top 10, filtered by project).

The sparse side is the product's own BM25 document vector (`stages.index.sparse.sparse_vector`:
the same tokens and term-frequency saturation as today) with Qdrant's IDF, so both engines rank
on the same terms.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from qdrant_edge import (
    Distance, EdgeConfig, EdgeOptimizersConfig, EdgeShard, EdgeSparseVectorParams, EdgeVectorParams, FieldCondition,
    Filter, Fusion, HnswIndexConfig, MatchValue, Memory, Modifier, PayloadSchemaType, Point, Prefetch, Query,
    QueryBatchRequest, QueryRequest, ScalarQuantizationConfig, ScalarType, SparseVector, UpdateOperation,
)

DENSE, SPARSE = "dense", "bm25"


@dataclass(frozen=True)
class Knobs:
    """The build-time and memory settings `bench engine` tries (Qdrant's defaults: m 16, ef 100)."""

    name: str = "default"
    m: int = 16
    ef_construct: int = 100
    on_disk: bool = False  # vectors memory-mapped (Memory.Cold) instead of cached in RAM
    int8: bool = False  # scalar quantization: HNSW walks 1-byte vectors, the floats rescore
    indexing_threshold_kb: int | None = None  # None: Qdrant's default (10,000 KB ≈ 6.5k 384-d points)
    full_scan_threshold: int = 10_000  # KB of vectors under which a filtered query scans


def config(dimension: int, knobs: Knobs) -> EdgeConfig:
    hnsw = HnswIndexConfig(m=knobs.m, ef_construct=knobs.ef_construct, full_scan_threshold=knobs.full_scan_threshold)
    dense = EdgeVectorParams(size=dimension, distance=Distance.Cosine, memory=Memory.Cold if knobs.on_disk else None,
                             quantization_config=ScalarQuantizationConfig(ScalarType.Int8, always_ram=True)
                             if knobs.int8 else None)
    optimizers = EdgeOptimizersConfig(indexing_threshold=knobs.indexing_threshold_kb) \
        if knobs.indexing_threshold_kb is not None else None
    return EdgeConfig(vectors={DENSE: dense}, sparse_vectors={SPARSE: EdgeSparseVectorParams(modifier=Modifier.Idf)},
                      hnsw_config=hnsw, optimizers=optimizers)


def create(path: Path, dimension: int, knobs: Knobs) -> EdgeShard:
    shard = EdgeShard.create(str(path), config(dimension, knobs))
    shard.update(UpdateOperation.create_field_index("project", PayloadSchemaType.Keyword))
    return shard


def point(pid: str, dense: list[float], sparse: tuple[list[int], list[float]], payload: dict) -> Point:
    return Point(id=pid, vector={DENSE: dense, SPARSE: _sparse(sparse)},
                 payload=payload)


def upsert(shard: EdgeShard, points: list[Point]) -> None:
    shard.update(UpdateOperation.upsert_points(points))


def _project(project: str | None) -> Filter | None:
    return Filter(must=[FieldCondition(key="project", match=MatchValue(value=project))]) if project else None


def _sparse(pairs: tuple[list[int], list[float]]) -> SparseVector:
    return SparseVector(list(pairs[0]), list(pairs[1]))


def hybrid_rrf(shard: EdgeShard, dense: list[float], sparse: tuple[list[int], list[float]], project: str | None,
               prefetch: int = 100, limit: int = 10) -> list[str]:
    """The hybrid query in one call: both prefetches, Qdrant's RRF, the project filter."""
    where = _project(project)
    hits = shard.query(QueryRequest(limit=limit, filter=where, query=Fusion.Rrf(k=60), prefetches=[
        Prefetch(limit=prefetch, query=Query.Nearest(dense, using=DENSE), filter=where),
        Prefetch(limit=prefetch, query=Query.Nearest(_sparse(sparse), using=SPARSE), filter=where)]))
    return [str(h.id) for h in hits]


def both_sides(shard: EdgeShard, dense: list[float], sparse: tuple[list[int], list[float]], project: str | None,
               prefetch: int = 100) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """The dense and the BM25 candidates with their scores (one batch), for the product's own fusion."""
    where = _project(project)
    found = shard.query_batch(QueryBatchRequest([
        QueryRequest(limit=prefetch, query=Query.Nearest(dense, using=DENSE), filter=where),
        QueryRequest(limit=prefetch, query=Query.Nearest(_sparse(sparse), using=SPARSE), filter=where)]))
    return [[(str(h.id), h.score) for h in side] for side in found]  # type: ignore[return-value]
