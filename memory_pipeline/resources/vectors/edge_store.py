"""The embedded vector store: one Qdrant Edge shard per workspace (`state/vectors/`), issue 28.

Qdrant Edge is the Qdrant engine as an in-process library (HNSW, sparse vectors with IDF, payload
indexes, a write-ahead log). The shard's configuration is `shard_config` (docs/vector-engine.md,
"The shipped shard"). The payloads are the same dicts as the server's collection, kept whole beside the
shard (`vectors.payloads.sqlite`, resources/vectors/edge_payloads.py) and read from there; the shard's own
payload holds only the fields its filters use (SHARD_FIELDS). The sparse
vector is the store's own: each point's keyword terms (`message_docs.keyword_counts`) at their BM25
saturation (`sparse.keyword_vector`), against the average keyword length of the points held (each
point's length in its payload-table row, the totals recorded in `vectors.bm25.json`); the engine's
IDF completes BM25 at query time (docs/vector-engine.md, "What a point holds").

Edge lets one process open a shard folder at a time, so every opener takes the shard's file lock
(resources/vectors/edge_shard.py) and holds the shard for the operations of one `session()` (the recall
service `hold()`s it between requests and lets go when a writer asks);
`flush()` ends each write session; `optimize()` (the HNSW build) runs after ingest and after every
`OPTIMIZE_EVERY` points upserted, each build followed by a flush, never in the recall path. Writes
first check that the disk has room: Edge writes through memory maps, and a map written past the end
of a full disk ends the process with SIGBUS, not an error.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_pipeline.errors import BadInputError, DiskFullError, MemoryPipelineError, ServiceError, StoreLockedError
from memory_pipeline.models import content_hash
from memory_pipeline.resources.vectors.edge_payloads import PayloadTable, cite_key, table_path
from memory_pipeline.resources.vectors.edge_shard import (
    register_holder,
    scroll_pages,
    shard_lock,
    unregister_holder,
    wanted_by,
)
from memory_pipeline.resources.vectors.vector_points import StorePoint, filter_conditions, filter_field
from memory_pipeline.resources.workspace import atomic_write_json, atomic_write_text, read_json_dict
from memory_pipeline.stages.index.message_docs import has_keywords, keyword_counts
from memory_pipeline.stages.index.sparse import KEYS_VERSION, keyword_vector

if TYPE_CHECKING:
    from qdrant_edge import EdgeShard

DENSE, SPARSE = "dense", "bm25"
BATCH = 2048
SEGMENT_KB = 48_000  # 1 KB = 256 float dimensions: 32k points of 384 dimensions per segment, so no build (an
# HNSW over a segment, a merge) maps more than ~32k points' files at once (docs/secrets-and-faults.md)
INDEXING_KB = 10_000  # Qdrant's default, made explicit: a segment past 10 MB of vectors (~6.5k points) gets its HNSW
WATCH_EVERY = 0.2  # seconds between two looks at the want file while an index step holds the shard
SETTLE_TOLERANCE = 0.05  # the share the averages keyword values were made with may stray from the shard's (KeywordStats)
OPTIMIZE_EVERY = 10_000  # points written between two builds: the appendable segment never grows past this
# (one optimize() after 100k upserts built all 100k at once and held 1.6 GB at its peak)
KEYWORD_FIELDS = ("project", "tier", "kind", "session_id", "scope", "priority", "source_message_ids", "merged_into")
DATE_FIELDS = ("date",)  # filtered by range (recall's since/until and a named time): a datetime index, which
# takes the payload's "2026-11-05" as it is. Without it a range is checked point by point on the payloads:
# at 30k points a query naming a time took p50 40.8 ms against 4.9 ms with it (docs/vector-engine.md)
INDEX_MEMORY = "Cold"  # the payload indexes memory-mapped, read on demand. "Pinned" (in memory, as before
# 2026-11-27) reads the keyword maps whole at every open: at 100k points 0.34 s of CPU against 0.09 s
# and 88 MB more of the process's own memory (~10x at 1M); on disk, the first few hundred queries after
# an open fault their pages in from the disk (warm p95 72-124 ms against 45-77 in memory at 100k, load
# 10-12) unless the recall service reads the files once after the open (edge_recall.read_once: 52.6-71.3
# ms; docs/vector-engine.md, "How the product uses it"). optimize() moves a shard's indexes to their placement
PINNED_FIELDS = ("project", "scope", "tier", "merged_into", "date")  # but these, in memory: the fields of every
# recall's filter, a few values each, checked at each point a filtered search visits. At 1M points a dense
# search filtered to a tier and a date took p50 24.6-28.2 ms with them on disk, 13.0-15.8 in memory (16.2-20.3
# → 11.9-14.1 with a project's filter); the open at 1M 0.3-0.5 s more CPU and 21 MB more memory, at 10k and
# 100k 54-63 MB less (docs/vector-engine.md, "The shipped shard")
KEYWORD_INDEX_MEMORY = "Cold"  # the BM25 inverted index memory-mapped, each query reading its terms' lists. In
# memory (Edge's default, as before session 16) it grows with the text: at 1M points of real turns (lme-dev's
# own keyword vectors, 70 terms each) 421 MB of files and 498 MB of the process's own memory at the open,
# against 64 MB on disk, keyword search p50 / p95 3.7-3.9 / 5.2-5.7 ms on disk against 3.9-4.1 / 5.3-6.1 in
# memory (docs/vector-engine.md, "The shipped shard"). A shard built before is rebuilt at its next
# optimize(): Edge takes the placement from the configuration each open writes (54 s at 1M points)
SHARD_FIELDS = (*KEYWORD_FIELDS, *DATE_FIELDS)  # the payload fields the shard itself holds: what its filters
# and payload indexes use. The whole payload is in the payload table beside it (`vectors.payloads.sqlite`)
MIN_FREE_BYTES = 16 << 20  # below this, a write could fault in a memory map past the end of the disk (a
# write batch of 2,048 points of 384 dimensions is ~3 MB of vectors, its payloads and log record a few more)


def shard_config(dimension: int):
    """The one shard configuration (docs/vector-engine.md, "The shipped shard"): float vectors and
    their 4-bit copies memory-mapped and read on demand (the HNSW walk scores the copies; each dense hit is
    scored again from the float16 copy in the payload table, `EdgeStore.dense_scores`), HNSW m 8 /
    ef_construct 64 on one thread, BM25 with Qdrant's IDF and its index on disk, segments capped at 32k points.
    A shard made with int8 copies gets 4-bit ones at its next optimize()."""
    from qdrant_edge import (
        Distance,
        EdgeConfig,
        EdgeOptimizersConfig,
        EdgeSparseVectorParams,
        EdgeVectorParams,
        HnswIndexConfig,
        Memory,
        Modifier,
        TurboQuantBitSize,
        TurboQuantQuantizationConfig,
    )

    return EdgeConfig(
        vectors={DENSE: EdgeVectorParams(
            size=dimension, distance=Distance.Cosine, memory=Memory.Cold,
            quantization_config=TurboQuantQuantizationConfig(bits=TurboQuantBitSize.Bits4, memory=Memory.Cold))},
        sparse_vectors={SPARSE: EdgeSparseVectorParams(
            modifier=Modifier.Idf, memory=getattr(Memory, KEYWORD_INDEX_MEMORY))},
        hnsw_config=HnswIndexConfig(m=8, ef_construct=64, full_scan_threshold=10_000, max_indexing_threads=1),
        optimizers=EdgeOptimizersConfig(max_segment_size=SEGMENT_KB, indexing_threshold=INDEXING_KB),
    )


def dense_walk(limit: int | None = None):
    """The dense search's parameters: the HNSW walk scores the 4-bit copies and nothing more. Edge would
    rescore its hits from the float vectors, whose pages a query then maps (1.49 GB of the recall service's
    RSS after 400 queries at 1M); the hits are rescored from the payload table instead (`dense_scores`).
    With `limit` (the hits asked for) the walk's beam is twice that: Edge's default beam equals the limit,
    and a walk over 4-bit copies that keeps no more candidates than it returns misses true neighbours
    (docs/vector-engine.md, "Limits")."""
    from qdrant_edge import QuantizationSearchParams, SearchParams

    return SearchParams(hnsw_ef=2 * limit if limit else None, quantization=QuantizationSearchParams(rescore=False))


def check_free_space(folder: Path, need: int | None = None) -> None:
    """Raise DiskFullError when the filesystem of `folder` has less than `need` bytes free
    (MIN_FREE_BYTES when not given)."""
    need = MIN_FREE_BYTES if need is None else need
    probe = folder if folder.exists() else folder.parent
    try:
        free = shutil.disk_usage(probe).free
    except OSError:
        return
    if free < need:
        raise DiskFullError(str(folder))


def edge_filter(spec: dict[str, Any] | None):
    """`{"tier": "messages", "date_gte": "2026-01-01", "priority": ["high"]}` → an Edge Filter
    (the same dict form as vector_points.build_filter for the server)."""
    if not spec:
        return None
    from qdrant_edge import FieldCondition, Filter, MatchAny, MatchValue, RangeDateTime, RangeFloat

    unheld = sorted({filter_field(key) for key in spec} - set(SHARD_FIELDS))
    if unheld:  # the shard's payload holds only SHARD_FIELDS: a filter on another field would match nothing
        raise BadInputError(f"the vector shard cannot filter on {', '.join(unheld)}: its payload holds "
                            f"{', '.join(SHARD_FIELDS)}")

    must = filter_conditions(
        spec,
        value=lambda key, v: FieldCondition(key=key, match=MatchValue(value=v)),
        any_of=lambda key, vs: FieldCondition(key=key, match=MatchAny(any=vs)),
        numbers=lambda field, bounds: FieldCondition(key=field, range=RangeFloat(**bounds)),
        dates=lambda field, bounds: FieldCondition(key=field, range=RangeDateTime(**bounds)),
    )
    return Filter(must=must) if must else None


class EdgeStore:
    """The workspace's one Edge shard, behind the VectorIndex / ShardedIndex ports."""

    collection = "memory"

    def __init__(self, path: Path, *, dimension: int, lock_timeout: float = 60.0,
                 generation_file: Path | None = None, migration: Any = None, locked: bool = False) -> None:
        """`migration`: what moves the former week stores into the shard before an open while it is
        `pending()` (resources/edge_migration.WeekStoresMigration); `locked`: the caller already
        holds the shard's lock."""
        self.path = Path(path).expanduser().resolve()
        self.migration = migration
        self.locked = locked
        self.dimension = dimension
        self.lock_timeout = lock_timeout
        self.generation_file = generation_file or self.path.parent / "index-generation"
        self.table = PayloadTable(table_path(self.path))
        self._shard: EdgeShard | None = None
        self._depth = 0
        self._wrote = False
        self._unbuilt = 0  # points upserted by this store since its last optimize()
        self._held: contextlib.ExitStack | None = None
        self._holding = False  # inside `holding()`: a session opens the shard to hold it again
        self._thread_lock = threading.RLock()

    def where(self) -> str:
        return str(self.path)

    def for_day(self, day: str) -> EdgeStore:
        """One shard holds every day."""
        return self

    def shards(self) -> list[EdgeStore]:
        return [self]

    def exists(self) -> bool:
        """The shard was created (or former week stores wait to be migrated into it)."""
        return self.path.is_dir() or (self.migration is not None and self.migration.pending())

    # --- opening -----------------------------------------------------------------------

    @contextlib.contextmanager
    def session(self) -> Iterator[EdgeStore]:
        """Hold the shard open (and its lock) for several operations; a write session ends in flush()."""
        with self._thread_lock:
            if self._shard is None and self._holding:  # let go for another opener: held again
                self.hold()
            if self._shard is not None:  # inside an outer session, or held (`hold`)
                self._depth += 1
                try:
                    with _edge_errors(self.where()):
                        yield self
                finally:
                    self._depth -= 1
                if self._depth == 0 and self._held is not None and self._wrote:
                    self._shard.flush()
                    self._wrote = False
                    self.bump_generation()
                return
            with contextlib.nullcontext() if self.locked else shard_lock(self.path, self.lock_timeout):
                self._shard = self._open_migrated()
                self._wrote = False
                try:
                    with _edge_errors(self.where()):
                        yield self
                        if self._wrote:
                            self._shard.flush()
                finally:
                    shard, self._shard = self._shard, None
                    self.table.close()
                    with contextlib.suppress(Exception):
                        shard.close()
                if self._wrote:
                    self.bump_generation()

    def hold(self, ask: bool = True) -> None:
        """Open the shard and keep it open, with its lock, until `let_go()` (the recall service's way:
        sessions in between use it as it is); `ask`: make another long holder let go (not the
        recall service itself, which would be asking its own socket)."""
        with self._thread_lock:
            if self._held is not None:
                return
            stack = contextlib.ExitStack()
            if not self.locked:
                stack.enter_context(shard_lock(self.path, self.lock_timeout, ask=ask))
            try:
                with _edge_errors(self.where()):
                    self._shard = self._open_migrated()
            except BaseException:
                stack.close()
                raise
            self._wrote = False
            self._held = stack

    def let_go(self) -> bool:
        """Close a held shard and release its lock; False when it was not held."""
        with self._thread_lock:
            stack, self._held = self._held, None
            if stack is None:
                return False
            shard, self._shard = self._shard, None
            self.table.close()
            with contextlib.suppress(Exception):
                if shard is not None:
                    shard.close()
            stack.close()
            return True

    @property
    def held(self) -> bool:
        return self._held is not None

    @contextlib.contextmanager
    def holding(self) -> Iterator[EdgeStore]:
        """Hold the shard across the block's sessions (an index step: one open, where one per chunk and
        per tier cost 1.5 s each at 1M points and dropped the shard's files from the page cache), and let it go whenever
        another opener waits for it: a thread watches the want file (`edge_shard.wanted_by`) and lets go
        at once, or when the session in flight ends; this process's openers ask it directly. The next
        session opens it again and holds it again. Nothing more when the shard is held already."""
        if self._holding or self.held:
            yield self
            return
        self.hold()
        stop, own = threading.Event(), str(os.getpid())
        asked = wanted_by(self.path)

        def watch() -> None:  # a wait of up to WATCH_EVERY, beside a 1 s ask interval and 1.5 s opens at 1M
            nonlocal asked
            while not stop.wait(WATCH_EVERY):
                now = wanted_by(self.path)
                if now != asked:
                    asked = now
                    if now.split(" ", 1)[0] != own:  # not this process waiting to hold it again
                        self.let_go()

        watcher = threading.Thread(target=watch, name="shard-holding", daemon=True)
        self._holding = True
        register_holder(self.path, self.let_go)
        watcher.start()
        try:
            yield self
        finally:
            stop.set()
            watcher.join()
            unregister_holder(self.path, self.let_go)
            with self._thread_lock:
                self._holding = False
                self.let_go()

    def _open_migrated(self):
        if self.migration is not None:
            self.migration.run(self.path, dimension=self.dimension, lock_timeout=self.lock_timeout)
        shard = self._open()
        try:
            if not self.table.complete():  # a shard written before its payloads were kept beside it
                self._fill_table(shard)
            elif not self.table.complete("vectors"):  # or before the table kept the vectors' copies
                self._fill_vectors(shard)
            if not self.table.complete("keywords"):  # or before it kept each point's keyword length
                self._fill_keywords()
            if not self.keyword_stats.current():  # none yet, or values made by another `tokenize`
                self.keyword_stats.path.unlink(missing_ok=True)  # cut short, the re-key is done again
                self._rekey(shard)
        except BaseException:
            self.table.close()
            with contextlib.suppress(Exception):
                shard.close()
            raise
        return shard

    def _fill_table(self, shard) -> None:
        """Every point's payload, as the shard holds it, into the payload table (a shard of before the table:
        its points keep their whole payload in the shard too, which nothing reads any more); a run cut short
        is done again at the next open, as `complete` is set last."""
        check_free_space(self.path)
        for page in scroll_pages(shard, limit=BATCH, with_payload=True, with_vector=[DENSE]):
            if any("text" not in (record.payload or {}) for record in page):  # SHARD_FIELDS only: written with a table
                raise ServiceError(f"the payload table beside the vector shard {self.path} is missing, and the shard "
                                   "keeps only its filter fields: the index must be rebuilt (`ingest` does)")
            self.table.put((str(record.id), dict(record.payload or {}),
                            record.vector.get(DENSE) if isinstance(record.vector, dict) else None, None)
                           for record in page)
        self.table.mark_complete(("complete", "vectors"))  # the keyword lengths next (`_fill_keywords`)

    def _fill_vectors(self, shard) -> None:
        """Every point's dense vector, as the shard holds it, into the payload table's float16 copies."""
        check_free_space(self.path)
        for page in scroll_pages(shard, limit=BATCH, with_payload=False, with_vector=[DENSE]):
            self.table.put_vectors((str(record.id), record.vector.get(DENSE)) for record in page
                                   if isinstance(record.vector, dict))
        self.table.mark_complete(("vectors",))

    def _fill_keywords(self) -> None:
        """Every row's keyword length, from its payload, and the totals counted afresh (`KeywordStats`)."""
        check_free_space(self.path)
        for page in self.table.each(BATCH):
            self.table.set_keywords((point_id, keyword_length(payload)) for point_id, payload in page)
        self.table.recount_keywords()
        self.table.mark_complete(("keywords",))
        self.keyword_stats.record(*self.table.keyword_totals())

    def _rekey(self, shard, build_every: int | None = None) -> None:
        """A shard written before its sparse values were BM25's (no `vectors.bm25.json`), or keyed by
        another version of the keyword terms (`sparse.KEYS_VERSION`): every point's
        values made again from its payload, in two reads (the lengths, then the values); the stats file
        is written last, so a run cut short is done again at the next open. A point whose vector changes
        moves to the appendable segment, so the segments are built every `build_every` points
        (OPTIMIZE_EVERY), as upserts are: at 1M points one build at the end made a single 1M-point
        segment and took the process to 14.5 GB RSS."""
        from qdrant_edge import PointVectors, SparseVector, UpdateOperation

        def records():
            return (r for page in scroll_pages(shard, limit=BATCH, with_payload=False, with_vector=[SPARSE])
                    for r in self._joined(shard, page, True) if isinstance(r.vector, dict) and SPARSE in r.vector)

        self.table.set_keywords((r.id, keyword_length(r.payload or {})) for r in records())  # as `tokenize` counts
        self.table.recount_keywords()
        documents, total = self.table.keyword_totals()
        if documents:
            check_free_space(self.path)
            average = total / documents
            batch: list = []
            unbuilt, every = 0, build_every or OPTIMIZE_EVERY
            for record in records():
                indices, values = keyword_vector(*keyword_counts(record.payload or {}), average)
                if indices:
                    batch.append(PointVectors(str(record.id), {SPARSE: SparseVector(indices, values)}))
                if len(batch) == BATCH:
                    shard.update(UpdateOperation.update_vectors(batch))
                    unbuilt, batch = unbuilt + len(batch), []
                    if unbuilt >= every:
                        check_free_space(self.path)
                        shard.optimize()
                        shard.flush()  # the replaced segments' files let go
                        unbuilt = 0
            if batch:
                shard.update(UpdateOperation.update_vectors(batch))
            shard.flush()
        self.keyword_stats.record(*self.table.keyword_totals(), made=True, settled=True)

    def _open(self):
        from qdrant_edge import EdgeShard

        config = shard_config(self.dimension)
        deadline, delay = time.monotonic() + self.lock_timeout, 0.05
        while True:
            try:
                if (self.path / "edge_config.json").is_file() or (self.path / "segments").is_dir():
                    shard = EdgeShard.load(str(self.path), config)
                    _ensure_indexes(shard)
                    return shard
                check_free_space(self.path.parent)
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.keyword_stats.path.unlink(missing_ok=True)  # a former shard's, deleted by hand
                self.table.reset()  # and its payloads
                shard = EdgeShard.create(str(self.path), config)
                _ensure_indexes(shard)
                self.table.mark_complete()
                return shard
            except MemoryPipelineError:
                raise
            except Exception as exc:  # qdrant_edge raises plain Exception with the engine's message
                text = str(exc)
                if "incompatible" in text.lower():
                    raise ServiceError(
                        f"the vector shard {self.path} was built for another embedding model ({text}): "
                        "the embedding model changed. Rebuild the index: delete the shard folder and "
                        "re-run indexing.") from exc
                if "WouldBlock" not in text:  # another process outside our lock has the shard open
                    raise ServiceError(f"cannot open the vector shard {self.path}: {text}") from exc
                if time.monotonic() + delay > deadline:
                    raise StoreLockedError(
                        f"vector shard {self.path} is held open by another process "
                        f"(not through memory-pipeline's lock) for {self.lock_timeout:.0f}s") from exc
                time.sleep(delay)
                delay = min(delay * 2, 1.0)

    def damage(self) -> str | None:
        """What is wrong with the shard or its payload table, read as an open reads them, or None: a shard the
        engine cannot load, a payload table SQLite finds damaged or that is missing. A shard held by another
        process, or built for another embedding model, is no damage: that error is raised."""
        if not self.path.is_dir():
            return None
        try:
            with self.session():
                return self.table.damage()
        except StoreLockedError:
            raise
        except ServiceError as exc:
            if "another embedding model" in str(exc):
                raise
            return str(exc)
        except sqlite3.DatabaseError as exc:
            return f"{self.table.path.name}: {exc}"

    def set_aside(self) -> Path:
        """Move the shard, its payload table and its keyword statistics into `<shard>.damaged-<time>/`
        beside it (under the shard's lock), so the next open starts an empty shard; where they went."""
        aside = self.path.with_name(f"{self.path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
        with shard_lock(self.path, self.lock_timeout):
            self.table.close()
            aside.mkdir(parents=True)
            for part in (self.path, self.keyword_stats.path,
                         *(Path(f"{self.table.path}{suffix}") for suffix in ("", "-wal", "-shm"))):
                if part.exists():
                    part.replace(aside / part.name)
        return aside

    @property
    def shard(self):
        if self._shard is None:
            raise RuntimeError("EdgeStore.shard used outside a session()")
        return self._shard

    def ensure_collection(self) -> None:
        """Create the shard, or check that its dense size matches the embedder's (on open)."""
        with self.session():
            pass

    def bump_generation(self) -> None:
        """Record that the shard changed (a unique token, written atomically)."""
        atomic_write_text(self.generation_file, f"{time.time_ns()}-{os.getpid()}-{uuid.uuid4().hex[:8]}\n")

    # --- writing -----------------------------------------------------------------------

    def _update(self, operation) -> None:
        check_free_space(self.path)
        self.shard.update(operation)
        self._wrote = True

    def upsert(self, points: list[StorePoint]) -> None:
        """Write points; the payload gets `text` and `content_hash` (sha256 of the text), the sparse
        vector the point's BM25 keyword values (whatever sparse vector the point came with)."""
        from qdrant_edge import UpdateOperation

        if not points:
            return
        with self.session():
            for start in range(0, len(points), BATCH):
                batch = points[start:start + BATCH]
                counted = [keyword_counts({**p.payload, "text": p.text}) for p in batch]
                payloads = [_whole_payload(p) for p in batch]
                self.table.put((_norm(p.id), payload, p.dense, length if has_keywords(p.payload) else None)
                               for p, payload, (_, length) in zip(batch, payloads, counted, strict=True))
                average = self.keyword_stats.record(*self.table.keyword_totals(), made=True)  # a passage is no document
                self._update(UpdateOperation.upsert_points(
                    [_edge_point(p, payload, keyword_vector(counts, length, average))
                     for p, payload, (counts, length) in zip(batch, payloads, counted, strict=True)]))
                self._unbuilt += len(batch)
                if self._unbuilt >= OPTIMIZE_EVERY:
                    self._build()

    @property
    def keyword_stats(self) -> KeywordStats:
        return KeywordStats(self.path.parent / f"{self.path.name}.bm25.json")

    def set_payload(self, ids: list[str], payload: dict[str, Any]) -> None:
        from qdrant_edge import UpdateOperation

        if ids:
            keys, held = [_norm(i) for i in ids], {k: v for k, v in payload.items() if k in SHARD_FIELDS}
            with self.session():
                self.table.merge(keys, payload)
                if held:
                    # qdrant_edge's stub asks list[int | UUID | str] where any list of ids will do (list is
                    # invariant, so list[str] is refused)
                    self._update(UpdateOperation.set_payload(keys, held))  # type: ignore[arg-type]

    def delete(self, ids: list[str]) -> None:
        from qdrant_edge import UpdateOperation

        if ids:
            keys = [_norm(i) for i in ids]
            with self.session():
                self._update(UpdateOperation.delete_points(keys))  # type: ignore[arg-type]  # the stub's list: see set_payload
                self.table.delete(keys)
                self.keyword_stats.record(*self.table.keyword_totals())

    def delete_vectors(self, ids: list[str]) -> None:
        """Drop the dense and sparse vectors of these points and keep their payloads."""
        from qdrant_edge import UpdateOperation

        if ids:
            with self.session():
                self._update(UpdateOperation.delete_vectors([_norm(i) for i in ids], [DENSE, SPARSE]))

    def optimize(self) -> bool:
        """After a run's writes (never in the recall path): the keyword values made again when the average
        they were made with has strayed from the shard's (`KeywordStats.settled`), then the HNSW built and
        small segments merged; payload indexes a former version placed otherwise (in memory or on disk) are
        made again where `index_memory` says first, and segments built with another BM25 index placement
        (KEYWORD_INDEX_MEMORY) again by Edge."""
        if not self.exists():
            return False
        with self.session():
            if not self.keyword_stats.settled(self.table.keyword_totals()):
                self._rekey(self.shard)
                self._wrote = True
            return self._build()

    def _build(self) -> bool:
        """The HNSW build and segment merge (inside a session)."""
        check_free_space(self.path)
        _ensure_indexes(self.shard, move=True)
        self._unbuilt = 0
        built = bool(self.shard.optimize())
        if built:  # the segments a build replaced stay memory-mapped until the next flush
            self.shard.flush()
        self._wrote = self._wrote or built
        return built

    # --- reading -----------------------------------------------------------------------

    def _records(self, ids: list[str], with_payload: Any, with_vectors: bool) -> Iterator[Record]:
        keys = list(dict.fromkeys(_norm(i) for i in ids))
        if not keys or not self.exists():
            return
        with self.session():
            for start in range(0, len(keys), BATCH):
                found = self.shard.retrieve(keys[start:start + BATCH], with_payload=False, with_vector=with_vectors)
                yield from self._joined(self.shard, found, with_payload)

    def _whole_payloads(self, shard, keys: list[str]) -> dict[str, dict[str, Any]]:
        """id → whole payload from the payload table; a point with no row (its table's file removed by hand and
        filled again from the shard) gets what the shard holds."""
        payloads = self.table.get(keys)
        missing = [k for k in keys if k not in payloads]
        if missing:
            payloads |= {str(r.id): dict(r.payload or {})
                         for r in shard.retrieve(missing, with_payload=True, with_vector=False)}
        return payloads

    def _joined(self, shard, found: list[Any], fields: bool | list[str]) -> list[Record]:
        """The shard's records (ids, vectors) with their payloads from the payload table (`_whole_payloads`);
        `fields`: all of them (True), these keys, or none (False)."""
        records = [Record(str(r.id), {}, r.vector) for r in found]
        if fields is False or not records:
            return records
        payloads = self._whole_payloads(shard, [r.id for r in records])
        for record in records:
            whole = payloads.get(record.id, {})
            record.payload = whole if fields is True else {f: whole[f] for f in fields if f in whole}
        return records

    def missing_or_changed(self, ids_and_hashes: dict[str, str]) -> set[str]:
        """The ids (as given) that are not stored or whose stored content_hash differs."""
        given = {_norm(i): i for i in ids_and_hashes}
        stored = {str(r.id): (r.payload or {}).get("content_hash")
                  for r in self._records(list(ids_and_hashes), ["content_hash"], False)}
        return {g for norm, g in given.items() if stored.get(norm) != ids_and_hashes[g]}

    def payload_fields(self, ids: list[str], fields: list[str]) -> dict[str, dict[str, Any]]:
        given = {_norm(i): i for i in ids}
        return {given[str(r.id)]: {f: (r.payload or {}).get(f) for f in fields}
                for r in self._records(ids, list(fields), False)}

    def retrieve(self, ids: list[str], with_vectors: bool = False) -> list[StorePoint]:
        """The stored points among `ids` (unknown ids are skipped)."""
        return [_point(r) for r in self._records(ids, True, with_vectors)]

    def payloads(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """id → payload ("text" included) of the stored points among `ids`, as stored: recall's read of its
        ranked candidates, without a validated StorePoint each (80 a query, ~1.5 ms of it at 1M points)."""
        keys = list(dict.fromkeys(_norm(i) for i in ids))
        if not keys or not self.exists():
            return {}
        with self.session():  # the candidates came from the shard: their rows are read without asking it first
            return self._whole_payloads(self.shard, keys)

    def dense_scores(self, ids: list[str], vector: list[float]) -> dict[str, float]:
        """id → the cosine of `vector` with the point's dense vector, from the float16 copy in the payload table
        (the shard's own scores come from its 4-bit copies), for the ids among `ids` that have one."""
        import numpy as np

        found = self.table.vectors(list(dict.fromkeys(ids)))
        if not found:
            return {}
        query = np.asarray(vector, dtype=np.float32)
        query /= float(np.linalg.norm(query)) or 1.0
        keys = list(found)
        matrix = np.stack([found[k] for k in keys])
        norms = np.linalg.norm(matrix, axis=1)
        norms[norms == 0] = 1.0
        return dict(zip(keys, (matrix @ query / norms).tolist(), strict=True))

    def messages_citing(self, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """(session id, message id) → the id of the messages' point that indexes it, for those the shard
        holds: found in the payload table (an index of its own), not by walking the shard's keyword index of
        source_message_ids, whose pages would then stay mapped in the recall service (49 MiB at 1M points)."""
        keys = {cite_key(session, message): (session, message) for session, message in wanted}
        if not keys or not self.exists():
            return {}
        with self.session():
            found = self.table.citing(list(keys))
            held = {str(r.id) for r in self.shard.retrieve(list(set(found.values())), with_payload=False,
                                                          with_vector=False)} if found else set()
        return {keys[key]: point_id for key, point_id in found.items() if point_id in held}

    def near(self, vector: list[float], limit: int, score_threshold: float,
             payload_filter: dict[str, Any] | None = None) -> list[StorePoint]:
        """The points nearest `vector` by the dense index (cosine ≥ `score_threshold`, at most `limit`),
        with their vectors: a day's new facts find their near-duplicates without reading every fact."""
        from qdrant_edge import Query, QueryRequest

        if not self.exists():
            return []
        with self.session():
            hits = self.shard.query(QueryRequest(
                limit=limit, query=Query.Nearest([float(x) for x in vector], using=DENSE),
                filter=edge_filter(payload_filter), score_threshold=score_threshold, with_payload=False,
                with_vector=False, params=dense_walk()))
        return self.retrieve([str(h.id) for h in hits], with_vectors=True)

    def count(self, filter: dict[str, Any] | None = None) -> int:
        """Points matching the filter; 0 when nothing was ever indexed (no shard yet)."""
        from qdrant_edge import CountRequest

        if not self.exists():
            return 0
        with self.session():
            return int(self.shard.count(CountRequest(exact=True, filter=edge_filter(filter))))

    def scroll_all(self, with_vectors: bool = False, payload_filter: dict[str, Any] | None = None,
                   fields: list[str] | None = None) -> Iterator[StorePoint]:
        """Every point (the shard stays open and locked until the iteration ends); `fields`: only these
        payload keys (a memory-wide pass over a large shard reads what it needs, not every text)."""
        for record in self.records(with_vectors=with_vectors, payload_filter=payload_filter, fields=fields):
            yield _point(record)

    def records(self, with_vectors: bool | list[str] = False, payload_filter: dict[str, Any] | None = None,
                batch: int = BATCH, fields: list[str] | None = None) -> Iterator[Any]:
        """Every stored record (id, payload, vector); `fields`: only these payload keys."""
        if not self.exists():
            return
        where = edge_filter(payload_filter)
        with self.session():
            for page in scroll_pages(self.shard, limit=batch, filter=where, with_payload=False,
                                     with_vector=with_vectors):
                yield from self._joined(self.shard, page, list(fields) if fields else True)


def _ensure_indexes(shard, move: bool = False) -> None:
    """The payload indexes recall filters on, placed as `index_memory` says: a shard made before one
    was added gets it at its open; with `move` (optimize), an index placed otherwise (a former
    version's) is made again where `index_memory` says."""
    from qdrant_edge import DatetimeIndexParams, KeywordIndexParams, Memory, UpdateOperation

    have = shard.info().payload_schema or {}
    wanted = [(f, KeywordIndexParams) for f in KEYWORD_FIELDS] + [(f, DatetimeIndexParams) for f in DATE_FIELDS]
    made = False
    for field, params in wanted:
        found, memory = have.get(field), getattr(Memory, index_memory(field))
        if found is not None and (not move or (getattr(found.params, "memory", None) or Memory.Pinned) == memory):
            continue
        if found is not None:
            shard.update(UpdateOperation.delete_field_index(field))
        shard.update(UpdateOperation.create_field_index(field, params(memory=memory)))
        made = True
    if made:
        shard.flush()


def index_memory(field: str) -> str:
    """Where a field's payload index lives: in memory for PINNED_FIELDS, else INDEX_MEMORY."""
    return "Pinned" if field in PINNED_FIELDS else INDEX_MEMORY


def _norm(point_id: str) -> str:
    try:
        return str(uuid.UUID(str(point_id)))
    except ValueError as exc:
        raise BadInputError(f"point id must be a UUID string, got {point_id!r}") from exc


class KeywordStats:
    """The shard's keyword documents and their total length (`<shard>.bm25.json`): the average BM25
    normalizes a point's length by, which Edge's IDF modifier does not keep. The counts are the payload
    table's (each row keeps its point's keyword length; a row written again replaces its length), so
    they are those of the points held, however often or by how many writers at once a point is written;
    this file records them after each write and the `tokenize` version the values were made with.

    A write batch's values use the average with the batch included, so a shard that grows a day at a time
    holds values made with the averages of each day's write. The file keeps their range (`made_with`, low
    and high; [] before any value is made); once it strays more than SETTLE_TOLERANCE from the shard's
    average, the next `optimize()` (after a run's writes) makes every point's values again with that
    average (`_rekey`). A file of before the range counts as made with the average it records: an upgrade
    rewrites nothing (a re-key takes ~0.5 ms a point: minutes at 1M, holding the shard). Without the range a
    store's first days keep values made with the average of a few sessions
    for good. On LoCoMo dev's three shards, ingested day by day, the values end within 2.5 % of the average,
    and recall@10 with every value made again is the same within noise (0.793 against 0.795)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _data(self) -> dict[str, Any]:
        return read_json_dict(self.path)

    def read(self) -> tuple[int, float]:
        return _counts(self._data())

    def current(self) -> bool:
        """Whether the file exists and the shard's values were made by this `tokenize` (a file of
        before the version was kept counts as version 1)."""
        data = self._data()
        try:
            return bool(data) and int(data.get("keys", 1)) == KEYS_VERSION
        except (ValueError, TypeError):
            return False

    def made_with(self) -> list[float] | None:
        """The lowest and highest average the stored values were made with ([] none made yet), None when
        not recorded (a file of before the range was kept: its values count as made with its average)."""
        return _made_range(self._data())

    def settled(self, totals: tuple[int, float]) -> bool:
        """Whether every stored value was made with an average within SETTLE_TOLERANCE of the shard's
        (`totals` as the payload table counts them); a shard with no keyword documents is settled."""
        documents, length = totals
        if not documents:
            return True
        made, average = self.made_with(), length / documents
        margin = average * SETTLE_TOLERANCE
        return not made or (made[0] >= average - margin and made[1] <= average + margin)

    def record(self, documents: int, length: float, made: bool = False, settled: bool = False) -> float:
        """Write the payload table's counts and return the average length (the caller holds the shard's
        lock); `made`: values are made with that average now (all of them: `settled`)."""
        average = length / documents if documents else 1.0
        data = self._data()
        range_ = _made_range(data)
        if range_ is None:  # none yet, or a file of before the range: its values count as made with its average
            before, total = _counts(data)
            range_ = [total / before] * 2 if before else []
        if settled:
            range_ = [average, average] if documents else []
        elif made and documents:
            range_ = [min(range_[0], average), max(range_[1], average)] if range_ else [average, average]
        atomic_write_json(self.path, {"documents": documents, "length": length, "keys": KEYS_VERSION,
                                      "made_with": range_})
        return average


def _counts(data: dict[str, Any]) -> tuple[int, float]:
    """The keyword documents and their total length a stats file records; (0, 0.0) when it records none."""
    try:
        return int(data["documents"]), float(data["length"])
    except (KeyError, TypeError, ValueError):
        return 0, 0.0


def _made_range(data: dict[str, Any]) -> list[float] | None:
    """The `made_with` range a stats file records, None when it records none."""
    made = data.get("made_with")
    if isinstance(made, list) and len(made) in (0, 2) and all(isinstance(x, (int, float)) for x in made):
        return [float(x) for x in made]
    return None


def keyword_length(payload: dict[str, Any]) -> float | None:
    """A stored point's keyword length (its whole payload, text included), None when it is no keyword document."""
    return keyword_counts(payload)[1] if has_keywords(payload) else None


@dataclass
class Record:
    """A point as the store reads it: the shard's id and vectors, the payload from the payload table."""

    id: str
    payload: dict[str, Any]
    vector: Any


def _whole_payload(point: StorePoint) -> dict[str, Any]:
    """What the payload table keeps of a point: its payload, its text and the text's content hash."""
    return {**point.payload, "text": point.text, "content_hash": content_hash(point.text)}


def _edge_point(point: StorePoint, payload: dict[str, Any], sparse: tuple[list[int], list[float]]):
    """The shard's point: its vectors, and of its payload the SHARD_FIELDS."""
    from qdrant_edge import Point, SparseVector

    vector: dict[str, Any] = {}
    if point.dense is not None:
        vector[DENSE] = [float(x) for x in point.dense]
    if sparse[0]:
        vector[SPARSE] = SparseVector([int(i) for i in sparse[0]], [float(v) for v in sparse[1]])
    held = {key: payload[key] for key in SHARD_FIELDS if key in payload}
    return Point(id=_norm(point.id), vector=vector, payload=held)


def _point(record) -> StorePoint:
    payload = dict(record.payload or {})
    vectors = record.vector if isinstance(record.vector, dict) else {}
    dense, sparse = vectors.get(DENSE), vectors.get(SPARSE)
    return StorePoint(
        id=str(record.id),
        text=str(payload.get("text", "")),
        dense=list(dense) if dense is not None else None,
        sparse=(list(sparse.indices), [float(v) for v in sparse.values]) if sparse is not None else None,
        payload=payload,
    )


@contextlib.contextmanager
def _edge_errors(where: str) -> Iterator[None]:
    """Engine failures become ServiceError (or DiskFullError); the project's own errors pass through."""
    try:
        yield
    except Exception as exc:
        if type(exc) is not Exception:  # qdrant_edge raises plain Exception; anything else is not the engine's
            raise
        text = str(exc).lower()
        if "no space left" in text or "disk quota" in text:
            raise DiskFullError(where) from exc
        raise ServiceError(f"vector shard operation on {where} failed: {exc}") from exc
