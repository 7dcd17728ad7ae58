"""Recall's candidates from the workspace's Edge shard: one `query_batch` of the dense search and the
BM25 search (top k each; a named time's and a question's items' searches join the batch), the
filters (project and scope, tier, dates, priority, session, a fact merged away) done by the engine
on its payload indexes; ids and scores only: the engine reads the payloads of the candidates it
ranks (`payloads_of`, the fused best RankOptions.candidate_depth), not of every hit. The ranking
(stages/recall/rank.py) is the same as for the Qdrant-server path's in-memory index.

The source holds the shard open between requests (and its lock, resources/vectors/edge_shard.py) and lets
go when a writer asks (`release`, called by the lock's `ask_holders` in this process or over the
recall service's socket from another); the next request opens it again, waiting at most
`lock_timeout` seconds for the writer, then fails with a clear message: it never answers from an
older copy."""

from __future__ import annotations

import contextlib
import errno
import os
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from memory_pipeline.errors import StoreLockedError
from memory_pipeline.resources.vectors.edge_payloads import table_path
from memory_pipeline.resources.vectors.edge_shard import register_holder, unregister_holder
from memory_pipeline.resources.vectors.edge_store import DENSE, SPARSE, EdgeStore, dense_walk, edge_filter
from memory_pipeline.resources.vectors.memory_room import memory_headroom
from memory_pipeline.resources.vectors.recall_index import generation_at
from memory_pipeline.stages.index.passages import TIER as PASSAGES
from memory_pipeline.stages.index.passages import turn_of
from memory_pipeline.stages.index.sparse import token_id
from memory_pipeline.stages.recall.candidates import CandidateQuery, Candidates
from memory_pipeline.stages.recall.rank import RecallFilters


class ShardRecall:
    """The recall engine's candidate source on an Edge shard, held open between requests."""

    def __init__(self, store: EdgeStore, keep_open: bool = True) -> None:
        """`keep_open`: hold the shard between requests, as the recall service does; else (a recall
        in a command's own process) open it for each request, asking the service to let go."""
        self.store, self.keep_open = store, keep_open
        self._lock = threading.RLock()
        self.paged_in_s: float | None = None  # the last page-in's seconds (None until one has ended)
        self.paged_in_mb: float | None = None  # and the MiB it read (the payloads only where there was room)
        register_holder(store.path, self.release)

    @property
    def generation(self) -> str:
        return generation_at(self.store.generation_file)

    def __len__(self) -> int:
        with self._shard():
            return self.store.count()

    def points_held(self) -> int | None:
        """The shard's points while it is held, else None (a status check never waits for the shard)."""
        with self._lock:
            return self.store.count() if self.store.held else None

    @contextlib.contextmanager
    def _shard(self):
        """The open shard for one request (opened, and its lock taken, when not held); a writer that
        keeps it past the store's lock timeout is a clear StoreLockedError, never an older answer."""
        with self._lock, contextlib.ExitStack() as stack:
            if not self.store.exists():
                yield None
                return
            try:
                if self.keep_open and not self.store.held:
                    self.store.hold(ask=False)  # the service is the long holder: nobody to ask
                    # Edge drops the payload indexes' files from the page cache at each open, and after a
                    # restart nothing is cached: read what queries walk once in the background, or the
                    # first queries fault it in from the disk page by page (docs/vector-engine.md, "How the product uses it")
                    threading.Thread(target=self._page_in, name="recall-page-in", daemon=True).start()
                stack.enter_context(self.store.session())
            except StoreLockedError as exc:
                raise StoreLockedError(
                    f"recall waited {self.store.lock_timeout:.0f}s for the vector shard {self.store.path}: a "
                    "writer (ingest, maintenance, a store move) holds it; recall answers again once it is "
                    "done") from exc
            yield self.store.shard

    def _page_in(self) -> None:
        started, self.paged_in_s = time.perf_counter(), None
        self.paged_in_mb = round(read_once(self.store.path) / (1 << 20), 1)
        self.paged_in_s = round(time.perf_counter() - started, 2)

    def open(self) -> None:
        """Open the shard now and keep it (the recall service at its start); nothing when the source
        opens per request."""
        if self.keep_open:
            with self._shard():
                pass

    def release(self) -> bool:
        """Close the shard and let its lock go (after the request in flight); False when not held."""
        with self._lock:
            return self.store.let_go()

    def close(self) -> None:
        self.release()
        unregister_holder(self.store.path, self.release)

    def candidates(self, query: CandidateQuery, filters: RecallFilters) -> Candidates:
        from qdrant_edge import Query, QueryBatchRequest, QueryRequest, SparseVector

        windows = [None, query.window] if query.window else [None]  # a named time's own best join each list
        searches: list[tuple[str, int, Any, int, Any]] = []  # (list, group, query, k, filter)
        keyword = [("sparse", query.terms, query.k)] + [(f"part{i}", t, query.part_depth)
                                                       for i, t in enumerate(query.parts)]
        for group, window in enumerate(windows):
            where = recall_filter(filters, window)
            if query.dense is not None:
                nearest = Query.Nearest([float(x) for x in query.dense], using=DENSE)
                # the turns and their passages in one search (2k: a turn and its windows may fill several
                # places), each passage folded into its turn below and the best k turns kept. Two searches
                # (the passages apart) gave the same recall on both dev sets and a 1M-point shard's warm p95
                # 74 ms against 48-59 (docs/recall.md). Without passages 2k too: the walk scores 4-bit copies,
                # and the best k by the exact scores (`dense_scores`) are kept from twice as many
                searches.append(("dense", group, nearest, 2 * query.k, where))
            for name, terms, k in keyword:
                ids = sorted({token_id(t) for t in terms})
                if ids and k > 0:
                    searches.append((name, group, Query.Nearest(SparseVector(ids, [1.0] * len(ids)), using=SPARSE),
                                     k, where))
        found: dict[tuple[str, int], dict[str, float]] = {}
        walk = dense_walk(2 * query.k)
        with self._shard() as shard:
            if shard is not None and searches:
                batch = shard.query_batch(QueryBatchRequest([
                    QueryRequest(limit=k, query=q, filter=f, with_payload=False, with_vector=False,
                                 params=walk if name == "dense" else None)
                    for name, _, q, k, f in searches]))
                lists = [(name, group, [(str(hit.id), float(hit.score)) for hit in hits])
                         for (name, group, *_), hits in zip(searches, batch, strict=True)]
                dense_ids = [hit_id for name, _, hits in lists if name == "dense" for hit_id, _ in hits]
                exact = self.store.dense_scores(dense_ids, query.dense) if dense_ids and query.dense is not None else {}
                for name, group, hits in lists:
                    side = found.setdefault((name, group), {})
                    for hit_id, score in hits:  # a passage counts for its turn (its id names it): the best of the two
                        if name == "dense":
                            hit_id, score = turn_of(hit_id) or hit_id, exact.get(hit_id, score)
                        side[hit_id] = max(side.get(hit_id, float("-inf")), score)

        def ranked(name: str) -> list[tuple[str, float]]:
            merged: dict[str, float] = {}
            for group in range(len(windows)):
                best = sorted(found.get((name, group), {}).items(), key=lambda item: (-item[1], item[0]))
                for pid, score in best[:query.k] if name == "dense" else best:  # the turns folded: the top k
                    merged[pid] = max(merged.get(pid, float("-inf")), score)
            return sorted(merged.items(), key=lambda item: (-item[1], item[0]))

        return Candidates(ranked("dense"), ranked("sparse"), [ranked(f"part{i}") for i in range(len(query.parts))])

    def payloads_of(self, ids: Iterable[str]) -> dict[str, dict]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        with self._shard() as shard:
            if shard is None:
                return {}
            return {pid: payload | {"text": str(payload.get("text", ""))}
                    for pid, payload in self.store.payloads(wanted).items()}

    def cited_messages(self, payloads: Iterable[dict]) -> dict[tuple[str, str], str]:
        """(session id, message id) → message point id, for every message the observations cite."""
        cited: dict[str, set[str]] = {}
        for payload in payloads:
            if payload.get("tier") == "observations":
                session = str(payload.get("session_id", ""))
                cited.setdefault(session, set()).update(str(s) for s in payload.get("source_message_ids") or [])
        wanted = sorted((session, source) for session, sources in cited.items() for source in sources)
        if not wanted:
            return {}
        with self._shard() as shard:  # one read of the payload table's index of the messages' sources
            if shard is None:
                return {}
            return self.store.messages_citing(wanted)

    def points(self, ids: list[str] | None, session_id: str | None, limit: int) -> list[dict]:
        """The points (payload with "id" and "text") named by `ids`, or of one session; at most `limit`."""
        with self._shard() as shard:
            if shard is None:
                return []
            if ids is not None:
                found = {p.id: p for p in self.store.retrieve(list(dict.fromkeys(ids))[:limit])}
                chosen = [found[i] for i in dict.fromkeys(ids) if i in found]
            else:
                chosen = []
                for point in self.store.scroll_all(payload_filter={"session_id": str(session_id or "")}):
                    if point.payload.get("tier") == PASSAGES:  # a turn's windows: its turn is there
                        continue
                    chosen.append(point)
                    if len(chosen) >= limit:
                        break
            return [p.payload | {"text": p.text, "id": p.id} for p in chosen]


FILTERED_FIELDS = ("project", "scope", "tier", "date", "merged_into")  # the fields a query filters on
# (recall_filter's); session_id, priority and kind only on request (65 MB at 1M). The cited messages are
# found in the payload table (`EdgeStore.messages_citing`), not on the shard's index of source_message_ids
PAGED_IN = (*(f"segments/*/payload_index/*-{field[:8]}-*" for field in FILTERED_FIELDS),
            "segments/*/vector_storage-dense/quantized*", "segments/*/vector_index-dense/*")  # what every
# query walks: its filter's indexes (Edge names their files by the field's first 8 characters), the 4-bit
# copies and the HNSW links (at 1M points ~90 + 191 + 36 MB); not the float vectors


# The payloads of the candidates each query ranks are read by id at random from the payload table beside the
# shard (resources/vectors/edge_payloads.py): paged in too when the memory has room for it (read by id from the disk,
# 80 payloads took a 1M query's p50 3.3 → 14 ms)
ROOM_SHARE = 4  # the payloads are read only where the memory left has this many times their bytes: a
# quarter of it at most, so that a reopen (after each ingest) does not push much of the rest of the system's
# page cache out


def data_ranges(handle) -> Iterator[tuple[int, int]]:
    """The (start, end) byte ranges of an open file that hold data: Edge sizes its memory maps ahead of what
    they hold (at 1M points the payload files are 1,156 MB long and 436 MB of data), and reading a hole
    fills the page cache with zeros. The whole file where the filesystem cannot tell."""
    fd, end = handle.fileno(), os.fstat(handle.fileno()).st_size
    if not hasattr(os, "SEEK_DATA"):
        yield 0, end
        return
    offset = 0
    while offset < end:
        try:
            start = os.lseek(fd, offset, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # not "no data past `offset`": the filesystem cannot tell, read the rest
                yield offset, end
            return
        offset = os.lseek(fd, start, os.SEEK_HOLE)
        yield start, offset


def data_bytes(path: Path) -> int:
    """The bytes of data in a file (its holes left out)."""
    with contextlib.suppress(OSError), path.open("rb", buffering=0) as handle:
        return sum(end - start for start, end in data_ranges(handle))
    return 0


def data_blocks(handle, chunk: int) -> Iterator[tuple[int, bytes]]:
    """An open file's data (`data_ranges`), `chunk` bytes at most at a time, each with its offset."""
    for start, end in data_ranges(handle):
        handle.seek(start)
        while start < end and (block := handle.read(min(chunk, end - start))):
            yield start, block
            start += len(block)


def _read(paths: Iterable[Path], chunk: int) -> int:
    read = 0
    for path in paths:
        with contextlib.suppress(OSError):
            if path.is_file():
                with path.open("rb", buffering=0) as handle:
                    read += sum(len(block) for _, block in data_blocks(handle, chunk))
    return read


def read_once(shard: Path, chunk: int = 1 << 20, headroom=memory_headroom) -> int:
    """Read the data of the files every query walks (PAGED_IN; a matched folder, as an appendable segment's
    index, whole) into the page cache, then the payloads' when `headroom()` (bytes) holds ROOM_SHARE times
    it (a service held to a small memory cgroup, whose charge counts the page cache it reads, would evict
    the pages every query walks to make room for them); the bytes read. Read, not mapped: the pages are
    the system's cache, not the service's memory, and a query's fault on them is a minor one (the payload
    table is read with reads, never mapped)."""
    found = {p for pattern in PAGED_IN for p in shard.glob(pattern)}
    read = _read(sorted(found | {f for d in found if d.is_dir() for f in d.rglob("*")}), chunk)
    payloads = [p for p in (table_path(shard), Path(f"{table_path(shard)}-wal")) if p.is_file()]
    size = sum(data_bytes(p) for p in payloads)
    room = headroom()
    if room is not None and size * ROOM_SHARE <= room:
        read += _read(payloads, chunk)
    return read


TIER_FILTER = {"all": None, "messages": ["messages", PASSAGES]}  # the tiers whose search takes the passages
# with it (no filter on tier, or the messages' own): any other tier's is its name alone


def recall_filter(filters: RecallFilters, window=None):
    """RecallFilters (and a named time's days) → an Edge filter on the payload indexes: the project's
    own points, the user's and those of no known project, as the in-memory index's mask. The messages'
    tier takes their passages with it: the dense search folds them into their turns, and keyword search
    never finds one (a passage has no keyword vector)."""
    from qdrant_edge import FieldCondition, Filter, IsEmptyCondition, MatchValue

    spec: dict[str, Any] = {
        "tier": TIER_FILTER.get(filters.tier, filters.tier),
        "priority": filters.priority,
        "session_id": filters.session_id,
    }
    if window is not None:
        start, end = window
        spec |= {"date_gte": start.isoformat(), "date_lte": end.isoformat()}
    base = edge_filter({k: v for k, v in spec.items() if v is not None})
    # a fact maintenance folded into another memory is left out on its keyword index (its vectors go at compaction)
    must = [*(base.must if base is not None else []), IsEmptyCondition("merged_into")]
    for bound, day in (("gte", filters.since), ("lte", filters.until)):
        if day:  # a second range on the same field when a window is given too
            extra = edge_filter({f"date_{bound}": day})
            must += list(extra.must)
    if filters.project is not None:
        must.append(Filter(should=[FieldCondition(key="project", match=MatchValue(value=filters.project)),
                                   FieldCondition(key="project", match=MatchValue(value="")),
                                   IsEmptyCondition("project"),  # a point written without one: no known project
                                   FieldCondition(key="scope", match=MatchValue(value="user"))]))
    return Filter(must=must)

