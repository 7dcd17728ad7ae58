"""Near-duplicate facts (seed 003, Increment 2): the same insight observed in several sessions is
one memory with every source, worded as the freshest observation put it."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memory_pipeline.stages.union_find import UnionFind


@dataclass(frozen=True)
class FactVector:
    id: str
    created_ts: float
    vector: list[float]
    merged_into: str | None = None


@dataclass
class Merge:
    keep: str  # the freshest wording
    members: list[str] = field(default_factory=list)  # every fact of the group, `keep` included


def _unit(vectors: list[list[float]]) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def near_duplicate_groups(new: list[FactVector], known: list[FactVector], similarity: float) -> list[Merge]:
    """Groups of facts (each holding at least one of `new`) whose cosine to another member is at
    least `similarity`, joined transitively; facts already merged into another are left out."""
    live = {f.id: f for f in [*known, *new] if f.merged_into is None}
    candidates = [f for f in new if f.id in live]
    if not candidates or len(live) < 2:
        return []
    ids = list(live)
    everything = _unit([live[i].vector for i in ids])
    sets = UnionFind(ids)
    scores = _unit([f.vector for f in candidates]) @ everything.T
    for row, fact in enumerate(candidates):
        for col in np.flatnonzero(scores[row] >= similarity):
            other = ids[col]
            if other != fact.id:
                sets.union(fact.id, other)
    merges = []
    for members in sets.groups():
        if len(members) > 1:  # an edge always starts at a new fact, so every group holds one
            keep = max(members, key=lambda m: (live[m].created_ts, m))
            merges.append(Merge(keep, sorted(members)))
    return sorted(merges, key=lambda m: m.keep)
