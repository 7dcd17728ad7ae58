"""The recall engine: embedder + in-memory index + ranking, shared by the service and in-process calls.

It keeps the model and the index loaded; when the store's generation file changes it rebuilds
the index (in a background thread, answering from the previous index meanwhile).
"""

from __future__ import annotations

import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from datetime import timedelta

import numpy as np

from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError, MemoryPipelineError
from memory_pipeline.models import RecallHit
from memory_pipeline.resources.edge_shard import shard_busy
from memory_pipeline.resources.recall_cache import cached_generation, load_columns, save_columns
from memory_pipeline.resources.recall_index import RecallIndex, generation_at, load_index
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.index.sparse import tokenize
from memory_pipeline.stages.recall.rank import (
    RankOptions,
    RecallFilters,
    check_filters,
    check_limit,
    clean_query,
    fuse,
    rank,
)
from memory_pipeline.stages.recall.parts import query_parts, with_part
from memory_pipeline.stages.recall.speaker import asked_about
from memory_pipeline.stages.recall.supersession import with_supersession
from memory_pipeline.stages.recall.terms import query_terms
from memory_pipeline.stages.recall.when import named_window

MODES = ("hybrid", "dense", "sparse")


QUERY_CACHE = 256
MAX_POINTS = 2000  # points one `points` request returns (a session's turns and facts)


@dataclass
class SearchRequest:
    query: str
    limit: int = 10
    filters: RecallFilters = field(default_factory=RecallFilters)
    rewrite: bool = False
    record: bool = True
    now: float | None = None  # unix seconds; None = the current time
    mode: str = "hybrid"


@dataclass
class Timings:
    embed_ms: float = 0.0
    search_ms: float = 0.0
    total_ms: float = 0.0


def open_store(workspace: Workspace, settings: Settings, dimension: int, lock_timeout: float | None = None):
    """The workspace's store (QDRANT_URL or local); MEMORY_QDRANT_LOCK_TIMEOUT bounds the wait for a writer."""
    from memory_pipeline.resources.stores import workspace_store

    if lock_timeout is None:
        lock_timeout = settings.qdrant_lock_timeout
    return workspace_store(workspace.state, settings.qdrant_url, dimension=dimension,
                           api_key=settings.qdrant_api_key, lock_timeout=lock_timeout)


def default_rank_options(settings: Settings) -> RankOptions:
    """The one ranking every caller gets (CLI, service, hooks, brief): RankOptions(), with
    MEMORY_RECALL_RECENCY_WEIGHT applied when set."""
    weight = settings.recall_recency_weight
    if weight < 0:
        raise BadInputError(f"MEMORY_RECALL_RECENCY_WEIGHT must not be negative, got {weight}")
    return RankOptions(recency_weight=weight)


class RecallEngine:
    def __init__(self, workspace: Workspace, settings: Settings, options: RankOptions | None = None,
                 prefetch: int = 100, store=None, embedder=None) -> None:
        self.workspace = workspace
        self.settings = settings
        self.options = options or default_rank_options(self.settings)
        self.prefetch = prefetch
        self._embedder = embedder
        self._store = store
        self._index: RecallIndex | None = None
        self._reload_lock = threading.Lock()
        self._reloading: threading.Thread | None = None
        self._query_vectors: OrderedDict[str, list[float]] = OrderedDict()
        self._rewrites: dict[str, str] = {}
        self._redis = None
        self._superseded: tuple[int, dict] | None = None
        self.last = Timings()
        self.reload_error: str | None = None

    # --- resources ---------------------------------------------------------------------

    @property
    def embedder(self):
        if self._embedder is None:
            from memory_pipeline.resources.onnx_embedder import embedder_for

            self._embedder = embedder_for(self.settings.embedding_model, self.settings, self.settings.recall_torch_threads)
        return self._embedder

    @property
    def store(self):
        if self._store is None:
            self._store = open_store(self.workspace, self.settings, self.embedder.dimension)
        return self._store

    def store_where(self) -> str:
        """The store's URL or folder, said without opening it (a status ping must not import qdrant-client)."""
        return self.settings.qdrant_url or str(self.workspace.state_path("vectors"))

    def index(self, wait: float = 0.0) -> RecallIndex:
        """The current index; a changed store starts a rebuild (waited for up to `wait` seconds)."""
        if self._index is None:
            self._index = self._load()
            return self._index
        if self._generation() != self._index.generation:
            with self._reload_lock:
                if self._reloading is None or not self._reloading.is_alive():
                    self._reloading = threading.Thread(target=self._reload, daemon=True)
                    self._reloading.start()
                thread = self._reloading
            if wait > 0:
                thread.join(wait)
        return self._index

    def _load(self) -> RecallIndex:
        """The recall cache while the local store is unchanged since it was written (no store is
        opened, qdrant-client is not imported); else the store, whose rows then become the cache."""
        folder = self.workspace.state_path("recall_cache")
        if self.settings.qdrant_url:  # a server's writers on other machines do not touch our generation file
            return load_index(self.store)
        generation = self._generation()
        cached = load_columns(folder, generation)
        if cached is not None:
            return RecallIndex.from_columns(*cached, generation=generation)
        older = cached_generation(folder)
        if self._index is None and older and shard_busy(self.workspace.state_path("vectors")):
            # a writer (ingest, maintain) holds the shard: answer from the last cache rather than wait
            # for it; the generation differs, so the next request starts a reload in the background
            stale = load_columns(folder, older)
            if stale is not None:
                return RecallIndex.from_columns(*stale, generation=older)
        index = load_index(self.store)
        try:
            save_columns(folder, index.generation, index.ids, index.payloads, index.dense)
        except OSError as exc:  # a cache that cannot be written costs the next cold start, nothing else
            print(f"memory-pipeline: recall cache not written: {exc}", file=sys.stderr)
        return index

    def _generation(self) -> str:
        return generation_at(self.workspace.state_path("index_generation"))

    def _reload(self) -> None:
        try:
            self._index = self._load()
            self.reload_error = None
        except MemoryPipelineError as exc:  # a writer holds the store: keep the old index, retry later
            self.reload_error = str(exc)

    def warm(self) -> None:
        self.embedder.encode_query("warm up")
        self.index()

    # --- searching ---------------------------------------------------------------------

    def embed(self, query: str) -> list[float]:
        vector = self._query_vectors.get(query)
        if vector is None:
            vector = self.embedder.encode_query(query)
            self._query_vectors[query] = vector
            if len(self._query_vectors) > QUERY_CACHE:
                self._query_vectors.popitem(last=False)
        return vector

    def rewrite(self, query: str) -> str:
        if query not in self._rewrites:
            from memory_pipeline.flows.recall.rewrite import rewrite_query

            self._rewrites[query] = rewrite_query(self.workspace, self.settings, query)
        return self._rewrites[query]

    def search(self, request: SearchRequest, wait: float = 0.0) -> list[RecallHit]:
        started = time.perf_counter()
        query = clean_query(request.query)
        limit = check_limit(request.limit)
        filters = check_filters(request.filters)
        if request.mode not in MODES:
            raise MemoryPipelineError(f"unknown search mode {request.mode!r}")
        if request.rewrite:
            query = self.rewrite(query)
        index = self.index(wait)
        mask = index.mask(filters)
        t0 = time.perf_counter()
        dense = self.embed(query) if request.mode != "sparse" and len(index) else None
        t1 = time.perf_counter()
        options = replace(self.options, limit=limit, now_ts=time.time() if request.now is None else request.now)
        window = named_window(query, options.now_ts) if options.time_aware else None
        # a named time's own best candidates join the lists (the same scores, a second top-k)
        inside = index.window_mask(window.start, window.end + timedelta(days=options.report_lag_days)) if window \
            else None
        dense_hits = index.dense_search(dense, self.prefetch, mask, inside) if dense is not None else []
        terms = query_terms if options.light_verbs_out else tokenize
        sparse_hits = index.sparse_search(terms(query), self.prefetch, mask, inside) if request.mode != "dense" \
            else []
        fused = fuse([(index.ids[r], s) for r, s in dense_hits], [(index.ids[r], s) for r, s in sparse_hits], options)
        for part in query_parts(query) if options.query_parts and request.mode != "dense" else ():
            part_hits = index.sparse_search(terms(part), options.part_depth, mask, inside)
            fused = with_part(fused, fuse([], [(index.ids[r], s) for r, s in part_hits], options))
        payloads = with_supersession({pid: index.payloads[index.row_of[pid]] for pid in fused}, self.superseded())
        message_of = index.cited_messages(payloads.values()) if options.fuse_by_message else {}
        payloads |= {pid: index.payloads[index.row_of[pid]] for pid in message_of.values()}
        hits = rank(payloads, fused, options, window, message_of, asked_about(query))
        done = time.perf_counter()
        self.last = Timings((t1 - t0) * 1000, (done - t1) * 1000, (done - started) * 1000)
        if request.record:
            self.record(hits)
        return hits

    def points(self, ids: list[str] | None = None, session_id: str | None = None,
               limit: int = MAX_POINTS) -> list[dict]:
        """The stored points (payload with "id" and "text") named by `ids`, or of one session in
        index order; at most `limit`. Unknown ids are left out."""
        index = self.index()
        if ids is not None:
            rows = [index.row_of[i] for i in dict.fromkeys(ids) if i in index.row_of]
        else:
            code = index.session_codes.get(str(session_id or ""), -1)
            rows = [int(r) for r in np.flatnonzero(index.session == code)]
        return [index.payloads[r] | {"id": index.ids[r]} for r in rows[:limit]]

    def superseded(self) -> dict[str, dict]:
        """The ledger's map of superseded observation facts (memory/index/superseded.json), re-read
        when the file changes."""
        from memory_pipeline.resources.ledger_files import read_superseded

        self._superseded = read_superseded(self.workspace, self._superseded)
        return self._superseded[1]

    def record(self, hits: list[RecallHit]) -> None:
        """Count each hit in Redis; a Redis failure is reported on stderr, the hits still return."""
        if not hits:
            return
        from memory_pipeline.resources.redis_store import RedisStore, connect_redis

        for attempt in (1, 2):  # a kept connection fails once after the idle server stopped: reconnect
            try:
                if self._redis is None:
                    self._redis = RedisStore(connect_redis(self.settings.redis_url, self.workspace.state,
                                                             self.settings.redis_idle_timeout, self.settings.runtime_dir))
                self._redis.record_recall_hits([h.id for h in hits])
                return
            except MemoryPipelineError as exc:
                self._redis = None
                if attempt == 2:
                    print(f"memory-pipeline: recall counters not updated: {exc}", file=sys.stderr)
