"""The recall engine: embedder + candidate source + ranking, shared by the service and in-process calls.

The candidate source is the workspace's Edge shard, queried in the engine and held open between
requests (resources/vectors/edge_recall.py), or, with QDRANT_URL, an in-memory index of the server's points
(resources/vectors/recall_index.py), rebuilt when the store's generation file changes (in a background
thread, answering from the previous index meanwhile). Both hand the same ranking (stages/recall/)
their top lists.
"""

from __future__ import annotations

import queue
import shutil
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import TYPE_CHECKING

from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError, MemoryPipelineError
from memory_pipeline.flows.recall.protocol import RecallRequest
from memory_pipeline.flows.recall.rewrite import rewrite_query
from memory_pipeline.models import RecallHit
from memory_pipeline.ports import CandidateSource
from memory_pipeline.resources.embedding.onnx_embedder import embedder_for
from memory_pipeline.resources.files.ledger_files import read_superseded
from memory_pipeline.resources.vectors.edge_recall import ShardRecall
from memory_pipeline.resources.vectors.recall_index import RecallIndex, generation_at, load_index
from memory_pipeline.resources.vectors.stores import workspace_store
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.index.message_docs import keyword_parts
from memory_pipeline.stages.index.sparse import tokenize
from memory_pipeline.stages.recall.answer_type import answer_texts, asked_type, typed
from memory_pipeline.stages.recall.candidates import CandidateQuery
from memory_pipeline.stages.recall.parts import query_parts, with_part
from memory_pipeline.stages.recall.proximity import rescored, top_ids
from memory_pipeline.stages.recall.rank import (
    RankOptions,
    RecallFilters,
    check_filters,
    check_limit,
    clean_query,
    fuse,
    rank,
)
from memory_pipeline.stages.recall.speaker import asked_about, named_speaker
from memory_pipeline.stages.recall.supersession import with_supersession
from memory_pipeline.stages.recall.terms import query_terms
from memory_pipeline.stages.recall.when import named_window

if TYPE_CHECKING:  # Redis is imported only to count hits
    from memory_pipeline.resources.redis.redis_store import RedisStore

MODES = ("hybrid", "dense", "sparse")


def ranked_candidates(index: CandidateSource, fused: dict, known: dict[str, dict], depth: int
                      ) -> tuple[dict, dict[str, dict]]:
    """The `depth` best fused candidates and their payloads: those the source handed over (`known`,
    the in-memory index's) and the rest read from the source (the Edge shard hands ids and scores
    only); a candidate whose payload is gone or says it was merged away is left out."""
    best = top_ids(fused, depth)
    payloads = {pid: known[pid] for pid in best if pid in known}
    payloads |= index.payloads_of([pid for pid in best if pid not in payloads])
    kept = [pid for pid in best if pid in payloads and not payloads[pid].get("merged_into")]
    return {pid: fused[pid] for pid in kept}, {pid: payloads[pid] for pid in kept}


QUERY_CACHE = 256
SHARD_WAIT = 5.0  # seconds a service request waits for a writer to let the Edge shard go
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

    @classmethod
    def of(cls, request: RecallRequest) -> SearchRequest:
        """The search a recall request (the service's, or the client's in this process) asks for."""
        return cls(query=request.query, limit=request.limit, filters=request.filters(), rewrite=request.rewrite,
                   record=request.record, now=request.now, mode=request.mode)


@dataclass
class Timings:
    embed_ms: float = 0.0
    search_ms: float = 0.0
    total_ms: float = 0.0


def open_store(workspace: Workspace, settings: Settings, dimension: int, lock_timeout: float | None = None):
    """The workspace's store (QDRANT_URL or local); MEMORY_QDRANT_LOCK_TIMEOUT bounds the wait for a writer."""
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


def used_ids(hits: list[RecallHit]) -> list[str]:
    """What a recall used: each hit and the observation facts ranked with it (a message hit stands
    for the facts citing it: their use keeps them from turning stale, stages/maintenance/staleness)."""
    return list(dict.fromkeys([h.id for h in hits] + [s.fact_id for h in hits for s in h.sources if s.fact_id]))


class RecallEngine:
    def __init__(self, workspace: Workspace, settings: Settings, options: RankOptions | None = None,
                 prefetch: int = 100, store=None, embedder=None, service: bool = False) -> None:
        """`service`: this engine is the recall service's (the shard's one long holder)."""
        self.workspace = workspace
        self.settings = settings
        self.options = options or default_rank_options(self.settings)
        self.prefetch = prefetch
        self._embedder = embedder
        self._store = store
        self.service = service
        self._index: CandidateSource | None = None  # ShardRecall (Edge) or RecallIndex (QDRANT_URL)
        self._reload_lock = threading.Lock()
        self._reloading: threading.Thread | None = None
        self._query_vectors: OrderedDict[str, list[float]] = OrderedDict()
        self._rewrites: dict[str, str] = {}
        self._redis: RedisStore | None = None  # made on the first hits counted
        self._counts: queue.SimpleQueue | None = None
        self._counts_lock = threading.Lock()
        self._superseded: tuple[int, dict] | None = None
        self.last = Timings()
        self.warmed: dict[str, float] = {}  # warm()'s seconds: model loaded, source opened, both
        self.reload_error: str | None = None

    # --- resources ---------------------------------------------------------------------

    @property
    def embedder(self):
        if self._embedder is None:

            self._embedder = embedder_for(self.settings.embedding_model, self.settings, self.settings.recall_torch_threads)
        return self._embedder

    @property
    def store(self):
        if self._store is None:
            wait = self.settings.qdrant_lock_timeout
            if self.service and not self.settings.qdrant_url:  # a request waits this long for a writer
                wait = min(wait, SHARD_WAIT)
            self._store = open_store(self.workspace, self.settings, self.embedder.dimension, lock_timeout=wait)
        return self._store

    def store_where(self) -> str:
        """The store's URL or folder, said without opening it (a status ping must not import qdrant-client)."""
        return self.settings.qdrant_url or str(self.workspace.state_path("vectors"))

    def index(self, wait: float = 0.0) -> CandidateSource:
        """The candidate source; a server's changed store starts a rebuild of its in-memory index
        (waited for up to `wait` seconds). The Edge shard is queried as it is: nothing to rebuild."""
        if self._index is None:
            self._index = self._load()
            return self._index
        if isinstance(self._index, RecallIndex) and self._generation() != self._index.generation:
            with self._reload_lock:
                if self._reloading is None or not self._reloading.is_alive():
                    self._reloading = threading.Thread(target=self._reload, daemon=True)
                    self._reloading.start()
                thread = self._reloading
            if wait > 0:
                thread.join(wait)
        return self._index

    def _load(self):
        """The Edge shard's source (held from the service's start, opened per request elsewhere), or
        the server's points read into memory."""
        if self.settings.qdrant_url:
            return load_index(self.store)


        # the former recall cache (a copy of the store, before issue 28) goes
        shutil.rmtree(self.workspace.state_path("recall_cache"), ignore_errors=True)
        return ShardRecall(self.store, keep_open=self.service)

    def release_shard(self) -> bool:
        """Let the Edge shard go (a writer asked); the next request opens it again."""
        index = self._index
        return bool(index is not None and index.release())

    def _generation(self) -> str:
        return generation_at(self.workspace.state_path("index_generation"))

    def _reload(self) -> None:
        try:
            self._index = self._load()
            self.reload_error = None
        except MemoryPipelineError as exc:  # a writer holds the store: keep the old index, retry later
            self.reload_error = str(exc)

    def warm(self) -> None:
        """Load the model and open the candidate source (the Edge shard held, for the service) at
        the same time. ONNX Runtime reads and prepares the model without Python's lock; Edge's open holds
        it for most of its ~0.3 s at 100k points, so the open starts once the model's imports are done."""
        embedder = self.embedder  # chosen here, loaded by its load() below
        failed: list[BaseException] = []
        started = time.perf_counter()

        def open_source() -> None:
            try:
                self.index().open()
                self.warmed["open_s"] = round(time.perf_counter() - started, 3)
            except BaseException as exc:  # raised again in the caller's thread
                failed.append(exc)

        opening = threading.Thread(target=open_source, name="recall-open", daemon=True)
        embedder.load(starting=opening.start)  # the open holds Python's lock: started once the model's imports are done
        embedder.encode_query("warm up")
        self.warmed["model_s"] = round(time.perf_counter() - started, 3)
        opening.join()
        self.warmed["warm_s"] = round(time.perf_counter() - started, 3)
        if failed:
            raise failed[0]

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
        t0 = time.perf_counter()
        dense = self.embed(query) if request.mode != "sparse" else None
        t1 = time.perf_counter()
        options = replace(self.options, limit=limit, now_ts=time.time() if request.now is None else request.now)
        window = named_window(query, options.now_ts) if options.time_aware else None
        terms = query_terms if options.light_verbs_out else tokenize
        parts = query_parts(query) if options.query_parts and request.mode != "dense" else []
        speaker = asked_about(query)
        # a named time's own best candidates join the lists (the same scores, a second top-k)
        found = index.candidates(CandidateQuery(
            dense=dense, terms=terms(query) if request.mode != "dense" else [], k=self.prefetch,
            parts=[terms(part) for part in parts], part_depth=options.part_depth,
            window=(window.start, window.end + timedelta(days=options.report_lag_days)) if window else None),
            filters)
        fused = fuse(found.dense, found.sparse, options)
        for part_hits in found.parts:
            fused = with_part(fused, fuse([], part_hits, options))
        fused, payloads = ranked_candidates(index, fused, found.payloads, options.candidate_depth)
        if (options.pair_weight > 0 or options.owned_weight > 0) and request.mode != "dense":
            # the top candidates rescored for the question's words in order and "my X" (keyword evidence)
            texts = {pid: (keyword_parts(payloads[pid])[0], payloads[pid].get("role"))
                     for pid in top_ids(fused, options.rescore_depth)}
            fused = rescored(fused, texts, terms(query), query, options.pair_weight, options.owned_weight)
        if speaker is None:  # a conversation between named people: the one the question names
            speaker = named_speaker(query, [str(p.get("message") or "") for p in payloads.values()])
        if options.answer_weight > 0 and request.mode != "dense" and (kind := asked_type(query)) is not None:
            # the top candidates that hold the kind of answer the question asks for (a number, a time …)
            # beside its words
            fused = typed(fused, answer_texts(payloads, top_ids(fused, options.rescore_depth), speaker),
                          kind, terms(query), options.answer_weight)
        payloads = with_supersession(payloads, self.superseded())
        message_of = index.cited_messages(payloads.values()) if options.fuse_by_message else {}
        payloads |= index.payloads_of([pid for pid in message_of.values() if pid not in payloads])
        hits = rank(payloads, fused, options, window, message_of, speaker)
        done = time.perf_counter()
        self.last = Timings((t1 - t0) * 1000, (done - t1) * 1000, (done - started) * 1000)
        if request.record and self.service:  # counted after the answer: the first one would wait for
            self._counting.put(hits)  # redis-py's import and Redis's start (~0.2 s)
        elif request.record:
            self.record(hits)
        return hits

    def points(self, ids: list[str] | None = None, session_id: str | None = None,
               limit: int = MAX_POINTS) -> list[dict]:
        """The stored points (payload with "id" and "text") named by `ids`, or of one session in
        index order; at most `limit`. Unknown ids are left out."""
        return self.index().points(ids, session_id, limit)

    def superseded(self) -> dict[str, dict]:
        """The ledger's map of superseded observation facts (memory/index/superseded.json), re-read
        when the file changes."""
        self._superseded = read_superseded(self.workspace, self._superseded)
        return self._superseded[1]

    @property
    def _counting(self) -> queue.SimpleQueue[list[RecallHit]]:
        """The service's hits to count, taken by one thread in order (a count queued when the service
        stops is lost: a recall counter, not a record of anything)."""
        with self._counts_lock:
            if self._counts is None:
                counts: queue.SimpleQueue[list[RecallHit]] = queue.SimpleQueue()

                def count() -> None:
                    while True:
                        self.record(counts.get())

                threading.Thread(target=count, name="recall-counts", daemon=True).start()
                self._counts = counts
            return self._counts

    def record(self, hits: list[RecallHit]) -> None:
        """Count each hit in Redis; a Redis failure is reported on stderr, the hits still return."""
        if not hits:
            return
        from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis  # noqa: PLC0415 — Redis, only to count hits

        for attempt in (1, 2):  # a kept connection fails once after the idle server stopped: reconnect
            try:
                if self._redis is None:
                    self._redis = RedisStore(connect_redis(self.settings.redis_url, self.workspace.state,
                                                             self.settings.redis_idle_timeout, self.settings.runtime_dir))
                self._redis.record_recall_hits(used_ids(hits))
                return
            except MemoryPipelineError as exc:
                self._redis = None
                if attempt == 2:
                    print(f"memory-pipeline: recall counters not updated: {exc}", file=sys.stderr)
