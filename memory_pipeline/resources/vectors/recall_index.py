"""The Qdrant-server path's candidate source (QDRANT_URL): an in-memory copy of the collection, a
numpy dense matrix and a BM25 index. The embedded Edge shard is queried in its engine instead
(resources/vectors/edge_recall.py), with the same BM25: `message_docs.keyword_counts` (the previous turn's
tail a short turn borrows counts BORROWED_WEIGHT a word) at `sparse.saturation` (k1, b, the
collection's average length) times the textbook IDF; payload filters here are numpy masks. The index
is rebuilt from the store when its generation file changes.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import numpy as np

from memory_pipeline.ports import ShardedIndex, VectorIndex
from memory_pipeline.stages.index.message_docs import has_keywords, keyword_counts
from memory_pipeline.stages.index.passages import turn_of
from memory_pipeline.stages.index.sparse import K1, B, saturation
from memory_pipeline.stages.recall.candidates import CandidateQuery, Candidates
from memory_pipeline.stages.recall.rank import PRIORITIES, TIERS, RecallFilters


def _ordinal(day: object) -> int:
    try:
        return date.fromisoformat(str(day)[:10]).toordinal()
    except ValueError:
        return -1


class IndexedPoint(Protocol):
    """What the index reads of a point: a StorePoint, or a store's raw row (`_Row`)."""

    @property
    def id(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def dense(self) -> list[float] | None: ...

    @property
    def payload(self) -> dict[str, Any]: ...


class RecallIndex:
    """Points held in memory; search returns (row, score) pairs, best first."""

    def __init__(self, points: Iterable[IndexedPoint], generation: str = "", k1: float = K1, b: float = B) -> None:
        ids: list[str] = []
        payloads: list[dict] = []
        vectors: list[np.ndarray | None] = []  # float32 rows at once: 100k Python float lists would be 1.2 GB
        for point in points:
            ids.append(point.id)
            payloads.append(point.payload | {"text": point.text})
            vectors.append(np.asarray(point.dense, dtype=np.float32) if point.dense else None)
        dim = next((len(v) for v in vectors if v is not None), 0)
        dense = np.zeros((len(ids), dim), dtype=np.float32)
        for row, vector in enumerate(vectors):
            if vector is not None:
                dense[row] = vector
        self._build(ids, payloads, dense, generation, k1, b)

    @classmethod
    def from_columns(cls, ids: list[str], payloads: list[dict], dense: np.ndarray, generation: str = "",
                     k1: float = K1, b: float = B) -> RecallIndex:
        """The index of points already in columns (a payload's "text" is the point's text): the
        recall cache's form, which needs neither the store nor qdrant-client."""
        index = cls.__new__(cls)
        index._build(list(ids), list(payloads), np.asarray(dense, dtype=np.float32), generation, k1, b)
        return index

    def _build(self, ids: list[str], payloads: list[dict], dense: np.ndarray, generation: str, k1: float,
               b: float) -> None:
        self.generation = generation
        self.ids, self.payloads, self.dense = ids, payloads, dense
        postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        lengths: list[float] = []
        for row, payload in enumerate(payloads):
            counts, length = keyword_counts(payload)
            lengths.append(length)
            for token, count in counts.items():
                postings[token].append((row, count))
        self.row_of = {pid: row for row, pid in enumerate(self.ids)}
        size = len(self.ids)
        self.keyworded = np.array([has_keywords(p) for p in payloads], dtype=bool)  # BM25's documents
        self.has_dense = np.any(self.dense != 0, axis=1) if dense.shape[1] else np.zeros(size, dtype=bool)
        self._build_passages()
        self._build_bm25(postings, np.asarray(lengths, dtype=np.float32), k1, b)
        self._build_columns()

    def _build_passages(self) -> None:
        """A turn's passages (stages/index/passages.py): their rows and their turn's, by turn; a passage
        is never a hit of its own (its turn's gone: it is left out)."""
        is_passage = ~self.keyworded  # `has_keywords`: every point but a passage
        owned = sorted((self.row_of[turn], row) for row in np.flatnonzero(is_passage)
                       if (turn := turn_of(self.ids[row])) in self.row_of)
        self.passage_turns = np.array([t for t, _ in owned], dtype=np.int64)
        self.passage_rows = np.array([r for _, r in owned], dtype=np.int64)
        self.has_dense &= ~is_passage  # the rows a dense search may return

    def __len__(self) -> int:
        return len(self.ids)

    def points_held(self) -> int:
        """Its points (held in memory: a status check never waits)."""
        return len(self.ids)

    def open(self) -> None:
        """Nothing to open: the points were read when it was built."""

    def release(self) -> bool:
        """Nothing to let go (the server's store is not held between requests)."""
        return False

    def _build_bm25(self, postings: dict[str, list[tuple[int, float]]], lengths: np.ndarray, k1: float, b: float) -> None:
        size = int(self.keyworded.sum())
        average = float(lengths[self.keyworded].mean()) if size else 1.0
        self.postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for token, entries in postings.items():
            rows = np.fromiter((r for r, _ in entries), dtype=np.int32, count=len(entries))
            tf = np.fromiter((c for _, c in entries), dtype=np.float32, count=len(entries))
            idf = math.log(1.0 + (size - len(entries) + 0.5) / (len(entries) + 0.5))
            self.postings[token] = (rows, (idf * saturation(tf, lengths[rows], max(average, 1e-9), k1, b)
                                           ).astype(np.float32))

    def _build_columns(self) -> None:
        p = self.payloads
        self.tier = np.array([TIERS.index(x["tier"]) if x.get("tier") in TIERS else -1 for x in p], dtype=np.int8)
        self.day = np.array([_ordinal(x.get("date")) for x in p], dtype=np.int32)
        self.priority = np.array(
            [PRIORITIES.index(x["priority"]) if x.get("priority") in PRIORITIES else -1 for x in p], dtype=np.int8
        )
        self.live = np.array([not x.get("merged_into") for x in p], dtype=bool)
        self.message_rows = {(str(x.get("session_id", "")), str(x["source_message_ids"][0])): row
                             for row, x in enumerate(p) if x.get("tier") == "messages" and x.get("source_message_ids")}
        self.project_codes: dict[str, int] = {}
        self.project = np.array(
            [self.project_codes.setdefault(str(x.get("project") or ""), len(self.project_codes)) for x in p],
            dtype=np.int32)
        self.user_scope = np.array([x.get("scope") == "user" for x in p], dtype=bool)
        self.session_codes: dict[str, int] = {}
        self.session = np.array(
            [self.session_codes.setdefault(str(x.get("session_id", "")), len(self.session_codes)) for x in p],
            dtype=np.int32,
        )

    def mask(self, filters: RecallFilters) -> np.ndarray | None:
        """A boolean row mask for the filters, or None when nothing is filtered. A fact merged into
        another memory by maintenance is never a hit: the memory it joined carries its sources."""
        mask = None if self.live.all() else self.live

        def both(extra: np.ndarray) -> np.ndarray:
            return extra if mask is None else mask & extra

        if filters.tier != "all":
            mask = both(self.tier == TIERS.index(filters.tier))
        if filters.since:
            mask = both(self.day >= date.fromisoformat(filters.since).toordinal())
        if filters.until:
            mask = both((self.day <= date.fromisoformat(filters.until).toordinal()) & (self.day >= 0))
        if filters.priority:
            mask = both(self.priority == PRIORITIES.index(filters.priority))
        if filters.session_id is not None:
            code = self.session_codes.get(filters.session_id, -1)
            mask = both(self.session == code)
        if filters.project is not None:  # the project's own, the user's, and those of no known project
            code = self.project_codes.get(filters.project, -2)
            mask = both((self.project == code) | (self.project == self.project_codes.get("", -2)) | self.user_scope)
        return mask

    def window_mask(self, start: date, end: date) -> np.ndarray:
        """Rows dated from `start` to `end` (inclusive)."""
        return (self.day >= start.toordinal()) & (self.day <= end.toordinal())

    def cited_messages(self, payloads: Iterable[dict]) -> dict[tuple[str, str], str]:
        """(session id, message id) → message point id, for every message the observations cite."""
        found = {}
        for payload in payloads:
            if payload.get("tier") != "observations":
                continue
            session = str(payload.get("session_id", ""))
            for source in payload.get("source_message_ids") or []:
                row = self.message_rows.get((session, str(source)))
                if row is not None:
                    found[(session, str(source))] = self.ids[row]
        return found

    @staticmethod
    def _top(scores: np.ndarray, k: int, keep: np.ndarray) -> list[tuple[int, float]]:
        rows = np.flatnonzero(keep)
        if rows.size == 0:
            return []
        if rows.size > k:
            part = np.argpartition(-scores[rows], k - 1)[:k]
            rows = rows[part]
        order = np.argsort(-scores[rows], kind="stable")
        return [(int(r), float(scores[r])) for r in rows[order]]

    def dense_search(self, vector: list[float] | np.ndarray, k: int, mask: np.ndarray | None,
                     also: np.ndarray | None = None) -> list[tuple[int, float]]:
        """The top k within `mask`; with `also`, the top k within it join (one matrix product)."""
        if not len(self) or self.dense.shape[1] == 0:
            return []
        scores = self.dense @ np.asarray(vector, dtype=np.float32)
        if self.passage_rows.size:  # a turn scores as the best of its own vector and its passages'
            np.maximum.at(scores, self.passage_turns, scores[self.passage_rows])
        keep = self.has_dense if mask is None else mask & self.has_dense
        return self._top_also(scores, k, keep, also)

    def sparse_search(self, tokens: list[str], k: int, mask: np.ndarray | None,
                      also: np.ndarray | None = None) -> list[tuple[int, float]]:
        found = [self.postings[t] for t in dict.fromkeys(tokens) if t in self.postings]
        if not found:
            return []
        rows = np.concatenate([r for r, _ in found])
        weights = np.concatenate([w for _, w in found])
        scores = np.bincount(rows, weights=weights, minlength=len(self)).astype(np.float32)
        keep = scores > 0 if mask is None else (scores > 0) & mask
        return self._top_also(scores, k, keep, also)

    def candidates(self, query: CandidateQuery, filters: RecallFilters) -> Candidates:
        """The dense and keyword top lists within the filters (a named time's own top k joining each)."""
        mask = self.mask(filters)
        inside = self.window_mask(*query.window) if query.window else None
        dense = self.dense_search(query.dense, query.k, mask, inside) if query.dense is not None else []
        sparse = self.sparse_search(query.terms, query.k, mask, inside) if query.terms else []
        parts = [self.sparse_search(terms, query.part_depth, mask, inside) for terms in query.parts]
        rows = {r for hits in (dense, sparse, *parts) for r, _ in hits}
        return Candidates([(self.ids[r], s) for r, s in dense], [(self.ids[r], s) for r, s in sparse],
                          [[(self.ids[r], s) for r, s in hits] for hits in parts],
                          {self.ids[r]: self.payloads[r] for r in rows})

    def payloads_of(self, ids: Iterable[str]) -> dict[str, dict]:
        return {pid: self.payloads[self.row_of[pid]] for pid in ids if pid in self.row_of}

    def points(self, ids: list[str] | None, session_id: str | None, limit: int) -> list[dict]:
        """The points (payload with "id") named by `ids`, or of one session in index order; at most `limit`."""
        if ids is not None:
            rows = [self.row_of[i] for i in dict.fromkeys(ids) if i in self.row_of]
        else:
            code = self.session_codes.get(str(session_id or ""), -1)
            rows = [int(r) for r in np.flatnonzero((self.session == code) & self.keyworded)]  # no passages
        return [self.payloads[r] | {"id": self.ids[r]} for r in rows[:limit]]

    def _top_also(self, scores: np.ndarray, k: int, keep: np.ndarray, also: np.ndarray | None
                  ) -> list[tuple[int, float]]:
        top = self._top(scores, k, keep)
        if also is None:
            return top
        merged = dict(top) | dict(self._top(scores, k, keep & also))
        return sorted(merged.items(), key=lambda rs: (-rs[1], rs[0]))


def read_generation(store: VectorIndex) -> str:
    """The store's change token ("" when it has never been written)."""
    return generation_at(getattr(store, "generation_file", None))


def generation_at(path: Path | None) -> str:
    """The change token in a store's generation file, read without opening the store."""
    try:
        return path.read_text(encoding="utf-8").strip() if path is not None else ""
    except FileNotFoundError:
        return ""


def load_index(store: ShardedIndex) -> RecallIndex:
    """Every point of every shard, read once, but those merged into another memory by maintenance;
    absent stores or collections add nothing."""
    generation = read_generation(store)
    return RecallIndex(itertools.chain.from_iterable(_shard_rows(s) for s in store.shards()), generation)


def _shard_rows(store: VectorIndex) -> Iterator[_Row]:
    """The store's points but those merged into another memory (never a hit; a second copy would
    count twice in BM25's statistics), read raw (an Edge shard's first read migrates former week stores)."""
    for record in store.records(with_vectors=["dense"]):
        payload = record.payload or {}
        if not payload.get("merged_into"):
            vectors = record.vector if isinstance(record.vector, dict) else {}
            yield _Row(str(record.id), str(payload.get("text", "")), vectors.get("dense"), payload)


class _Row(NamedTuple):
    id: str
    text: str
    dense: list[float] | None
    payload: dict
