"""Pseudo-relevance feedback (pure): the first pass's best hits say what else the answer may be called.

Keyword side (RM3 / Rocchio): the salient terms of the top `docs` candidates — by how often they
occur there, weighted by each candidate's share of the first pass's score and by the term's rarity
in the collection — that the question does not already hold; they are looked up as a second keyword
query whose matches join at a low weight. Dense side: the query vector moved toward the mean of the
top candidates' vectors.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from memory_pipeline.stages.recall.rank import Fused


def top_ids(fused: Mapping[str, Fused], count: int) -> list[str]:
    """The `count` best candidates of the first pass, best first (ties by id)."""
    return [pid for pid, _ in sorted(fused.items(), key=lambda kv: (-kv[1].score, kv[0]))[:count]]


def expansion_terms(docs: Sequence[tuple[Sequence[str], float]], query: set[str], frequency: Callable[[str], int],
                    size: int, count: int) -> list[str]:
    """The `count` terms of the feedback `docs` ((tokens, first-pass score) pairs) that best describe them:
    Σ over docs of score share × the term's share of the doc's tokens, × idf; the query's terms, and
    terms found in one doc only, left out."""
    if count < 1 or not docs or size < 1:
        return []
    total = sum(max(score, 0.0) for _, score in docs) or 1.0
    weight: dict[str, float] = defaultdict(float)
    seen: dict[str, int] = defaultdict(int)
    for tokens, score in docs:
        if not tokens:
            continue
        share = max(score, 0.0) / total
        counts: dict[str, int] = defaultdict(int)
        for token in tokens:
            counts[token] += 1
        for token, n in counts.items():
            weight[token] += share * n / len(tokens)
            seen[token] += 1
    ranked = []
    for token, w in weight.items():
        if token in query or seen[token] < 2 or token.isdigit():
            continue
        df = frequency(token)
        idf = math.log(1.0 + (size - df + 0.5) / (df + 0.5))
        ranked.append((-w * idf, token))
    return [token for _, token in sorted(ranked)[:count]]


def with_feedback(fused: dict[str, Fused], extra: Mapping[str, Fused], weight: float) -> dict[str, Fused]:
    """`fused` with the feedback query's matches added at `weight` × their scaled score."""
    merged = dict(fused)
    for pid, item in extra.items():
        base = merged.get(pid)
        if base is None:
            merged[pid] = Fused(weight * item.score, sparse_rank=item.sparse_rank, sparse_score=item.sparse_score)
        else:
            merged[pid] = Fused(base.score + weight * item.score, base.dense_rank, base.dense_score, base.sparse_rank,
                                base.sparse_score, base.extra)
    return merged


def moved_query(vector: Sequence[float], neighbours: np.ndarray, weight: float) -> np.ndarray:
    """The query vector moved toward the mean of `neighbours` (rows): q + weight × mean, unit length."""
    query = np.asarray(vector, dtype=np.float32)
    if weight <= 0 or not len(neighbours):
        return query
    moved = query + weight * neighbours.mean(axis=0)
    norm = float(np.linalg.norm(moved))
    return moved / norm if norm > 0 else query
