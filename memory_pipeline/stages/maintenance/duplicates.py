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


def point_source(point_id: str, payload: dict) -> dict:
    """A fact's own source as a merged memory keeps it: ids only (the fact, its observation, the
    session, the cited messages and their roles), never a text."""
    return {"id": point_id, "date": payload.get("date"), "session_id": payload.get("session_id"),
            "project": payload.get("project") or "", "observation_id": payload.get("observation_id"),
            "source_message_ids": list(payload.get("source_message_ids") or []),
            "source_roles": list(payload.get("source_roles") or [])}


def merged_payloads(merge: Merge, payloads: dict[str, dict]) -> tuple[dict, dict[str, dict]]:
    """The payload of the kept memory (every source of every member, oldest first, and the mention
    count) and of the folded ones (`merged_into`). A member merged before brings all its sources."""
    sources: dict[str, dict] = {}
    for member in merge.members:
        for source in payloads[member].get("sources") or [point_source(member, payloads[member])]:
            sources[source["id"]] = source
    ordered = sorted(sources.values(), key=lambda s: (str(s.get("date")), s["id"]))
    messages = sorted({m for s in ordered for m in s["source_message_ids"]})
    keep = {"sources": ordered, "mentions": len(ordered), "source_message_ids": messages, "merged_into": None}
    return keep, {m: {"merged_into": merge.keep} for m in merge.members if m != merge.keep}
