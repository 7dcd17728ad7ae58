"""Generated points and queries for `bench engine` (deterministic by seed).

Vectors are random unit vectors at the model's dimension (384): real MiniLM embeddings of a
million texts take hours on 2 shared cores, so speed is measured on generated vectors and ranking
on real ones (`engine_quality`). Texts follow a message-length distribution (log-normal word
counts, median 30 words, about 1 in 20 over 150, cut at 600) over a coding vocabulary; 20
projects, one per point, uniformly. The stored BM25 vectors use the recall index's k1 and b (with
the store's default avg_len), so Qdrant's IDF × these weights is close to the recall index's BM25.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from benchmarks.recall_speed import WORDS
from memory_pipeline.models import stable_id
from memory_pipeline.stages.index.sparse import sparse_vector, token_id, tokenize

PROJECTS = [f"project-{n:02d}" for n in range(20)]


@dataclass
class Row:
    id: str
    text: str
    dense: np.ndarray
    sparse: tuple[list[int], list[float]]
    payload: dict


def _words(rng: random.Random) -> int:
    return max(3, min(600, int(rng.lognormvariate(3.4, 0.9))))


def rows(count: int, dimension: int, seed: int, start: int = 0, batch: int = 2000) -> Iterator[list[Row]]:
    """Points `start`..`count` in batches; point n is the same whatever the batch or start."""
    for first in range(start, count, batch):
        last = min(count, first + batch)
        vectors = np.random.default_rng([seed, first]).standard_normal((last - first, dimension)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        out = []
        for n in range(first, last):
            rng = random.Random(seed * 1_000_003 + n)
            text = " ".join(rng.choice(WORDS) for _ in range(_words(rng)))
            day = f"2026-{rng.randint(1, 10):02d}-{rng.randint(1, 28):02d}"
            out.append(Row(stable_id("engine", str(seed), str(n)), text, vectors[n - first], sparse_vector(text), {
                "tier": "messages", "date": day, "session_id": f"s{n % 500}", "created_ts": 1.77e9 + n,
                "project": PROJECTS[n % len(PROJECTS)], "source_message_ids": [f"m{n}"], "stale": False,
                "text": text}))
        yield out


@dataclass
class Probe:
    text: str
    dense: np.ndarray
    terms: tuple[list[int], list[float]]
    project: str


def query_terms(text: str) -> tuple[list[int], list[float]]:
    """A query's BM25 side: each distinct token once (IDF comes from the engine)."""
    ids = sorted({token_id(t) for t in tokenize(text)})
    return ids, [1.0] * len(ids)


def probes(count: int, dimension: int, seed: int) -> list[Probe]:
    rng = random.Random(seed)
    vectors = np.random.default_rng(seed + 1).standard_normal((count, dimension)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    out = []
    for n in range(count):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8)))
        out.append(Probe(text, vectors[n], query_terms(text), rng.choice(PROJECTS)))
    return out
