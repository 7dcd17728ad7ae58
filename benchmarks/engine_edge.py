"""Qdrant Edge (`qdrant_edge`, the Qdrant engine in-process) for `bench engine`: one shard with
the store's layout (dense "dense" cosine + sparse "bm25" with IDF, a keyword index on "project")
and the recall's query shape (dense top 100 + BM25 top 100, fused, top 10, filtered by project).

The sparse side is the product's own BM25 document vector (`stages.index.sparse.sparse_vector`:
the same tokens and term-frequency saturation as today) with Qdrant's IDF, so both engines rank
on the same terms.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from qdrant_edge import (
    Distance, EdgeConfig, EdgeOptimizersConfig, EdgeShard, EdgeSparseVectorParams, EdgeVectorParams, FieldCondition,
    Filter, Fusion, HnswIndexConfig, MatchValue, Memory, Modifier, PayloadSchemaType, Point, Prefetch, Query,
    QueryBatchRequest, QueryRequest, ScalarQuantizationConfig, ScalarType, SparseVector, UpdateOperation,
)

from memory_pipeline.resources.vectors.edge_store import DENSE, SPARSE, shard_config


@dataclass(frozen=True)
class Knobs:
    """The build-time and memory settings `bench engine` tries (Qdrant's defaults: m 16, ef 100).

    Memory tiers (Qdrant's `Memory`): Pinned = read into the heap at open (anonymous memory, and the
    whole file read from disk: Edge drops each file from the page cache as it opens it); Cached =
    memory-mapped and read through at open; Cold = memory-mapped, each page read when first touched.
    """

    name: str = "default"
    m: int = 16
    ef_construct: int = 100
    on_disk: bool = False  # the float vectors memory-mapped (Memory.Cold) instead of cached
    int8: bool = False  # scalar quantization: HNSW walks 1-byte vectors, the floats rescore
    quantized_memory: Memory = field(default_factory=lambda: Memory.Pinned)  # where the int8 vectors live
    sparse_memory: Memory | None = None  # the BM25 inverted index; None: Edge's default (Pinned)
    wal: bool = True  # write-ahead log (without it an update is durable once flush() returns)
    indexing_threads: int = 0  # HNSW build threads, 0: one per CPU
    indexing_threshold_kb: int | None = None  # None: Qdrant's default (10,000 KB ≈ 6.5k 384-d points)
    max_segment_kb: int | None = None  # None: Qdrant's default (derived from the CPU count)
    full_scan_threshold: int = 10_000  # KB of vectors under which a filtered query scans
    exact: Callable[[int], EdgeConfig] | None = None  # a whole config by dimension: the knobs above are ignored


def config(dimension: int, knobs: Knobs) -> EdgeConfig:
    if knobs.exact is not None:
        return knobs.exact(dimension)
    hnsw = HnswIndexConfig(m=knobs.m, ef_construct=knobs.ef_construct, full_scan_threshold=knobs.full_scan_threshold,
                           max_indexing_threads=knobs.indexing_threads)
    quantized = ScalarQuantizationConfig(ScalarType.Int8, memory=knobs.quantized_memory) if knobs.int8 else None
    dense = EdgeVectorParams(size=dimension, distance=Distance.Cosine, memory=Memory.Cold if knobs.on_disk else None,
                             quantization_config=quantized)
    optimizers = EdgeOptimizersConfig(indexing_threshold=knobs.indexing_threshold_kb,
                                      max_segment_size=knobs.max_segment_kb)
    sparse = EdgeSparseVectorParams(modifier=Modifier.Idf, memory=knobs.sparse_memory)
    return EdgeConfig(vectors={DENSE: dense}, sparse_vectors={SPARSE: sparse}, hnsw_config=hnsw,
                      optimizers=optimizers, wal_enabled=knobs.wal)


def shipped(dimension: int) -> EdgeConfig:
    """The shard the product ships (docs/vector-engine.md, "The shipped shard"): the product's own
    `resources.edge_store.shard_config`, so the bench measures what the product builds. The shard
    also gets a keyword index on "project" (`create`)."""
    return shard_config(dimension)

KNOBS = {k.name: k for k in (
    Knobs(),
    Knobs("m8-ef64", m=8, ef_construct=64),
    Knobs("int8", int8=True),
    Knobs("on-disk", on_disk=True),
    Knobs("on-disk+int8+m8", m=8, ef_construct=64, on_disk=True, int8=True),  # session 6's choice
    Knobs("int8-cold", m=8, ef_construct=64, on_disk=True, int8=True, quantized_memory=Memory.Cold),
    Knobs("int8-cold-no-wal", m=8, ef_construct=64, on_disk=True, int8=True, quantized_memory=Memory.Cold, wal=False),
    Knobs("one-thread", m=8, ef_construct=64, on_disk=True, int8=True, quantized_memory=Memory.Cold,
          indexing_threads=1),
    Knobs("segments-50MB", m=8, ef_construct=64, on_disk=True, int8=True, quantized_memory=Memory.Cold,
          max_segment_kb=50_000),
    Knobs("index-at-100MB", indexing_threshold_kb=100_000),
    Knobs("shipped", exact=shipped),
)}


def segment_points(dimension: int, knobs: Knobs) -> int | None:
    """Points per segment under the knobs' cap (Qdrant counts it in KB of float vectors), None if uncapped."""
    optimizers = config(dimension, knobs).optimizers
    cap_kb = optimizers.max_segment_size if optimizers is not None else None
    return cap_kb * 1024 // (4 * dimension) if cap_kb else None


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
