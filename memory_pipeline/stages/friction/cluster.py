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

from collections.abc import Sequence

from memory_pipeline.stages.friction.signals import Signal

SIMILAR = 0.75
RELATED = 0.5
SHARED_IDENTIFIERS = 2
SIMILAR_ERROR = 0.85


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b))  # the embedder returns unit vectors


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
    parent = list(range(len(signals)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(signals)):
        for j in range(i + 1, len(signals)):
            if root(i) != root(j) and linked(signals[i], signals[j], cosine(vectors[i], vectors[j]),
                                             similar=similar, related=related):
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(signals)):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0]))
