"""Clustering friction signals, pure: over given unit vectors and the identifiers signals share.

Two signals of the same kind join one cluster when
- they carry the same exact key (a command failing with the same error signature), or
- their embeddings are close (cosine ≥ `similar`), or
- they are related (cosine ≥ `related`) and name the same identifiers (`uv`, `pip`, a path).
Command failures only join when they run the same command, and then by key or by a close
error (cosine ≥ SIMILAR_ERROR): the paths two errors share say nothing about their cause.
Clusters are the connected parts (union-find), so the result does not depend on the order.
"""

from __future__ import annotations

from memory_pipeline.stages.friction.signals import Signal
from memory_pipeline.stages.union_find import UnionFind
from memory_pipeline.stages.vectors import cosine

SIMILAR = 0.75
RELATED = 0.5
SHARED_IDENTIFIERS = 2
SIMILAR_ERROR = 0.85


def linked(a: Signal, b: Signal, similarity: float, *, similar: float = SIMILAR, related: float = RELATED) -> bool:
    """Whether two signals are the same friction."""
    if a.kind != b.kind:
        return False
    if a.key and a.key == b.key:
        return True
    if a.kind == "command-failure":
        return a.command == b.command and similarity >= SIMILAR_ERROR
    shared = len(a.identifiers & b.identifiers)
    needed = min(SHARED_IDENTIFIERS, len(a.identifiers), len(b.identifiers))
    return similarity >= similar or (needed > 0 and similarity >= related and shared >= needed)


def cluster_signals(signals: list[Signal], vectors: list[list[float]], *, similar: float = SIMILAR,
                    related: float = RELATED) -> list[list[int]]:
    """Indexes of `signals` grouped into clusters, largest first (ties by first index)."""
    if len(vectors) != len(signals):
        raise ValueError(f"{len(signals)} signals but {len(vectors)} vectors")
    sets = UnionFind(range(len(signals)))
    for i in range(len(signals)):
        for j in range(i + 1, len(signals)):
            if sets.find(i) != sets.find(j) and linked(signals[i], signals[j], cosine(vectors[i], vectors[j]),
                                                       similar=similar, related=related):
                sets.union(i, j)
    return sorted(sets.groups(), key=lambda g: (-len(g), g[0]))
