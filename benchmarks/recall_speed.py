"""`memory-pipeline bench recall --speed`: recall latency at 1k, 10k and 100k points.

Synthetic points (random unit vectors and real text: windows of the shared real transcripts' messages at their
real lengths; a third observations, half messages, a sixth the passages of one message in three) go straight
into an embedded store, then the
store is optimized as ingest leaves it (the Edge shard's HNSW built); each query is a new sentence,
so the query embedding is always computed. Cold = starting the recall service (model load + index
load) plus the first answer; cold_split_s = the service's own start, in seconds since its exec:
imports_s (the interpreter and the service's imports), model_s and open_s (the model loaded and the
shard opened, at once, counted from the end of the imports), warm_s (both), ready_s (listening);
warm = later answers through the socket, measured at the client; service_rss_mb / service_anon_mb = the service process's peak RSS (VmHWM) and its anonymous memory
after the queries. The in-process engine's own split gives the share spent embedding the query.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from benchmarks.memory_cap import MemoryCap, drop_page_cache, major_faults
from memory_pipeline.config import set_process_environment
from memory_pipeline.models import content_hash
from memory_pipeline.stages.index.message_docs import MAX_MESSAGE_CHARS

WORDS = ("redis pool timeout pagination orders api worker memory docker image cache ci flaky test deploy "
         "migration schema index query latency retry backoff queue consumer producer kafka postgres sqlite "
         "vector embedding search recall session hook agent prompt token budget review proposal reflect "
         "observation fact priority daily log partition sensor asset dagster qdrant model python rust go").split()


FILL_DAYS = 300  # the fill's points are dated from 2026-01-01 over this many days, in the order they are written


def fill_day(n: int, count: int) -> str:
    """The date of the fill's `n`th of `count` points. A history is written day by day, so each of the shard's
    segments holds a stretch of days; a random day for each point (as before 2026-11-27, session 15) put every
    month in every segment, and a search within a named time visited each segment's few thousand points of
    it (a 300k-point keyword-only shard, a month's window: p50 2.5 ms with random days, 0.3 in order;
    docs/vector-engine.md)."""
    return (date(2026, 1, 1) + timedelta(days=n * FILL_DAYS // max(count, 1))).isoformat()


def fill_id(seed: int, n: int) -> str:
    """The id of the fill's `n`th point when it is no passage (`is_passage`)."""
    from memory_pipeline.models import stable_id

    return stable_id("speed", str(seed), str(n))


def is_passage(n: int) -> bool:
    """Whether the fill's `n`th point is a passage of the message before it (stages/index/passages.py): 1 in 3
    messages has one."""
    return n % 6 == 5


def fill_texts():
    """The real text the fill's points are cut from (benchmarks/heavy_history.py: the shared real transcripts'
    messages by role, their lengths)."""
    from benchmarks.heavy_history import measure_lengths

    return measure_lengths()


def fill_text(seed: int, n: int, lengths) -> tuple[str, str]:
    """The role and the words of the fill's `n`th message: a real message's length, filled with a window of
    that role's real text (code, logs and prose as the transcripts have them; the same for the same seed
    and n, so a kept workspace's last point can be checked). An observation's is the user's."""
    from benchmarks.heavy_history import real_text

    rng = random.Random(f"{seed}:{n}")
    if n % 3 == 0:
        return "observation", " ".join(real_text(rng, lengths, "user").split())
    role = "user" if rng.random() < 1 / (1 + lengths.replies_per_user) else "assistant"
    return role, real_text(rng, lengths, role)


def fill_point(seed: int, n: int, count: int, vector, lengths, projects: tuple[str, ...] = ("",)):
    """The fill's `n`th point of `count`. A message carries its document and payload as the message index
    writes them (stages/index/message_docs.py: the day, the message, the previous message's tail; the role,
    the time), an observation its text, a passage the first window of the message before it
    (stages/index/passages.py), whatever that message's role or length."""
    from memory_pipeline.resources.vectors.vector_store import StorePoint
    from memory_pipeline.stages.index.message_docs import DocOptions, document_text
    from memory_pipeline.stages.index.passages import passage_id, windows

    day = fill_day(n, count)
    when = datetime.fromisoformat(day).replace(hour=8, tzinfo=timezone.utc) + timedelta(seconds=n % 36_000)
    if is_passage(n):
        turn = n - 1
        _, message = fill_text(seed, turn, lengths)
        return StorePoint(id=passage_id(fill_id(seed, turn), 0), text=(windows(message) or [message])[0],
                          dense=vector.tolist(), sparse=None, payload={
                              "date": fill_day(turn, count), "session_id": f"s{turn % 200}",
                              "created_ts": 1.77e9 + turn,
                              "project": projects[turn % len(projects)], "tier": "passages", "kind": "passage",
                              "passage_of": fill_id(seed, turn), "priority": None, "stale": False})
    role, words = fill_text(seed, n, lengths)
    payload = {"date": day, "session_id": f"s{n % 200}", "created_ts": 1.77e9 + n,
               "project": projects[n % len(projects)], "source_message_ids": [f"m{n}"], "stale": False}
    if role == "observation":
        return StorePoint(id=fill_id(seed, n), text=words, dense=vector.tolist(), sparse=None,
                          payload=payload | {"tier": "observations", "priority": "medium"})
    previous = fill_text(seed, n - 1, lengths)[1] if n % 3 == 2 else ""  # the message before it, if it is one
    text = document_text(words, role, when, previous, DocOptions())
    return StorePoint(id=fill_id(seed, n), text=text, dense=vector.tolist(), sparse=None, payload=payload | {
        "tier": "messages", "kind": "message", "scope": "project", "role": role, "provenance": role,
        "message": words[:MAX_MESSAGE_CHARS], "time": when.strftime("%H:%M"), "created_at": when.isoformat(),
        "priority": None})


def points_for(count: int, dimension: int, seed: int, projects: tuple[str, ...] = ("",)):
    """The fill's `count` points in the order they are written (`fill_point`): random unit vectors (no model
    embeds a million texts here), real text (the keyword index and the payloads grow as a user's do)."""
    lengths = fill_texts()
    for n, vector in enumerate(unit_vectors(count, dimension, seed)):
        yield fill_point(seed, n, count, vector, lengths, projects)


def unit_vectors(count: int, dimension: int, seed: int, chunk: int = 10_000) -> Iterator[np.ndarray]:
    """`count` random unit vectors (float32), made `chunk` at a time: never the whole matrix (at 1M
    points of 384 dimensions that was 3 GB of float64 before the cast). The generator draws in
    sequence, so the vectors are the same as one (count, dimension) draw's."""
    generator = np.random.default_rng(seed)
    for start in range(0, count, chunk):
        block = generator.standard_normal((min(chunk, count - start), dimension)).astype(np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        yield from block


def fill_store(workspace, points: Iterable, dimension: int, optimize: bool = True) -> float:
    """Today's store (week shards in local mode), written 2,000 points per upsert, then optimized
    (`optimize`); the seconds taken."""
    from memory_pipeline.config import Settings
    from memory_pipeline.flows.recall.engine import open_store

    store = open_store(workspace, Settings.from_env(), dimension)
    started = time.perf_counter()
    batches: dict[str, list] = {}  # by the store each day writes to (one per week in local mode)

    def flush(day: str) -> None:
        shard = store.for_day(day)
        with shard.session():
            shard.ensure_collection()
            shard.upsert(batches.pop(shard.where()))

    for point in points:
        day = point.payload["date"]
        batch = batches.setdefault(store.for_day(day).where(), [])
        batch.append(point)
        if len(batch) == 2000:
            flush(day)
    for batch in list(batches.values()):
        flush(batch[0].payload["date"])
    if optimize:
        optimize_store(workspace, dimension)
    return time.perf_counter() - started


def optimize_store(workspace, dimension: int) -> None:
    from memory_pipeline.config import Settings
    from memory_pipeline.flows.recall.engine import open_store

    store = open_store(workspace, Settings.from_env(), dimension)
    if hasattr(store, "optimize"):  # the Edge shard: its HNSW built, as ingest leaves it
        store.optimize()


class PeakMemory:
    """This process's largest VmRSS, RssAnon and RssFile (MB) while the block runs, sampled every
    0.2 s (the fill's own figures: inserting, then the HNSW build), and its VmHWM at the end."""

    def __init__(self) -> None:
        self.peak: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _sample(self) -> None:
        while True:
            for key, value in process_memory(os.getpid()).items():
                if key != "VmHWM":
                    self.peak[key] = max(self.peak.get(key, 0.0), value)
            if self._stop.wait(0.2):
                return

    def __enter__(self) -> "PeakMemory":  # entered again, it keeps the peak of every block
        self._stop.clear()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        # no sample ran during Edge's optimize() at 1M (it seems to keep Python's lock): the samples said 2.1 GB,
        # /proc said 9.1 GB. The process's own high-water mark, read at the end, does not miss it
        self.peak["VmHWM"] = process_memory(os.getpid()).get("VmHWM", 0.0)


def process_memory(pid: int | None) -> dict[str, float]:
    """VmHWM, VmRSS and RssAnon of a process, in MB (empty when it is gone)."""
    out: dict[str, float] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS", "RssAnon", "RssFile"):
                out[key] = round(int(value.split()[0]) / 1024, 1)
    except (OSError, ValueError, TypeError):
        pass
    return out


BUILD_CHUNK = 200_000  # points written between two optimize() calls: the shard's segment cap, as the
# product writes a long history (docs/vector-engine.md, "The shipped shard"); one optimize() after 1M
# upserts would build one HNSW over the whole appendable segment


TIMES = ("last spring", "in March 2026", "two months ago", "on 4 May, 2026")


def queries_for(n: int, seed: int) -> list[str]:
    """`n` queries of 3-8 consecutive words of the real users' messages, each made new by its number."""
    words = fill_texts().texts["user"].split()
    rng = random.Random(seed)
    found = []
    for i in range(n):
        size = rng.randint(3, 8)
        start = rng.randrange(max(1, len(words) - size))
        found.append(" ".join(words[start:start + size]) + f" {i}")
    return found


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


def _filled(workspace, count: int, dimension: int) -> bool:
    """The workspace's store already holds `count` points, passages among them, dated and worded as `points_for`
    makes them (a kept `--workdir` filled by an earlier run; one filled before passages, with random days or
    with random words, is filled again: the same ids, written over)."""
    from memory_pipeline.config import Settings
    from memory_pipeline.flows.recall.engine import open_store

    store = open_store(workspace, Settings.from_env(), dimension)
    if not (store.exists() and store.count() == count and store.count({"tier": "passages"}) == (count + 1) // 6):
        return False
    last = count - 2 if is_passage(count - 1) else count - 1  # the last point that is no passage
    pid = fill_id(count, last)  # the fill's seed is its count
    expected = fill_point(count, last, count, np.zeros(dimension, dtype=np.float32), fill_texts())
    found = store.payload_fields([pid], ["date", "content_hash"]).get(pid) or {}
    return found == {"date": expected.payload["date"], "content_hash": content_hash(expected.text)}


def _paged_in(workspace, runtime_dir: Path, timeout: float = 300.0) -> tuple[float | None, float | None]:
    """The seconds the service took to read its shard's walked files after the open (waited for) and the
    MiB it read, or None when its source has no page-in (an in-memory index)."""
    from memory_pipeline.resources.daemons import recall_service

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = recall_service.ping(workspace, runtime_dir) or {}
        if status.get("paged_in_s") is not None or "paged_in_s" not in status:
            return status.get("paged_in_s"), status.get("paged_in_mb")
        time.sleep(0.2)
    return None, None


def measure_size(count: int, queries: int, workdir: Path | None = None, memory_cap_mb: int | None = None) -> dict:
    """`memory_cap_mb`: start the recall service in a memory cgroup of that size (benchmarks/memory_cap.py)."""
    from memory_pipeline.config import Settings
    from memory_pipeline.flows.recall.client import recall, service_command
    from memory_pipeline.flows.recall.engine import RecallEngine, SearchRequest
    from memory_pipeline.services.recall_server import limit_torch_threads
    from memory_pipeline.resources.daemons import recall_service
    from memory_pipeline.resources.embedding.embedder import Embedder
    from memory_pipeline.resources.embedding.onnx_embedder import embedder_for
    from memory_pipeline.resources.workspace import Workspace
    from memory_pipeline.stages.recall.rank import RecallFilters

    with contextlib.ExitStack() as stack:
        root = (workdir / f"points-{count}") if workdir else Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="mp-speed-"))) / "ws"
        workspace = Workspace(root).create()
        set_process_environment(MEMORY_WORKSPACE=str(workspace.root))
        settings = Settings.from_env()  # once, after the environment names this workspace
        dimension = embedder_for(settings.embedding_model, settings).dimension
        points = points_for(count, dimension, seed=count)
        insert_s = optimize_s = 0.0
        inserting, optimizing = PeakMemory(), PeakMemory()
        reused = workdir is not None and _filled(workspace, count, dimension)
        for _ in range(0, 0 if reused else count, BUILD_CHUNK):  # as the product writes a long history: optimized per chunk
            with inserting:
                insert_s += fill_store(workspace, itertools.islice(points, BUILD_CHUNK), dimension, optimize=False)
            t_opt = time.perf_counter()
            with optimizing:
                optimize_store(workspace, dimension)
            optimize_s += time.perf_counter() - t_opt
        fill_s = None if reused else insert_s + optimize_s
        print(f"# {count} points{' (the kept workspace, not filled again)' if reused else ''}: inserted in {insert_s:.1f}s (peak RSS {inserting.peak}), optimized in "
              f"{optimize_s:.1f}s (peak RSS {optimizing.peak})", file=sys.stderr, flush=True)
        cap = stack.enter_context(MemoryCap(memory_cap_mb)) if memory_cap_mb else None
        try:
            dropped = drop_page_cache() if cap else None
            t0 = time.perf_counter()
            if cap:  # started here, in the cgroup, rather than by the first recall
                recall_service.ensure_service(workspace, settings.runtime_dir, cap.command(
                    service_command(workspace, settings)), settings.recall_start_timeout)
            first = recall(workspace, "redis pool timeout", record=False, settings=settings)
            cold_ms = (time.perf_counter() - t0) * 1000
            startup = (recall_service.ping(workspace, settings.runtime_dir) or {}).get("startup") or {}
            paged_in_s, paged_in_mb = _paged_in(workspace, settings.runtime_dir)  # the warm queries start after it
            print(f"# {count} points: cold {cold_ms:.0f} ms; the service's start (s since its exec): {startup}; "
                  f"page-in {paged_in_s} s, {paged_in_mb} MiB", file=sys.stderr, flush=True)
            pid = recall_service.service_pid(workspace)  # the one service every query below reaches
            faults = major_faults(pid)
            warm, filtered, timed = [], [], []
            for i, query in enumerate(queries_for(queries, seed=count)):
                t1 = time.perf_counter()
                if i % 4 == 2:  # a query naming a time: the window's own candidates are searched too
                    recall(workspace, f"{query} {TIMES[i % len(TIMES)]}", record=False, settings=settings)
                    timed.append((time.perf_counter() - t1) * 1000)
                elif i % 2:
                    recall(workspace, query, record=False, tier="messages", since="2026-03-01", settings=settings)
                    filtered.append((time.perf_counter() - t1) * 1000)
                else:
                    recall(workspace, query, record=False, settings=settings)
                    warm.append((time.perf_counter() - t1) * 1000)
            memory = process_memory(pid)
            faults_after = major_faults(pid)
            faults = None if faults is None or faults_after is None else faults_after - faults
            capped = {"memory_cap_mb": memory_cap_mb, "cap_peak_mb": cap.peak_mb(),
                      "page_cache_dropped": dropped} if cap else {}
        finally:
            recall_service.stop_service(workspace, settings.runtime_dir)
        engine = RecallEngine(workspace, settings, service=True)  # the service's engine: the shard held between searches
        if isinstance(engine.embedder, Embedder):  # as in the service
            limit_torch_threads(settings)
        t2 = time.perf_counter()
        engine.warm()
        load_s = time.perf_counter() - t2
        embed, total = [], []
        for query in queries_for(min(queries, 100), seed=count + 1):
            engine.search(SearchRequest(query=query, record=False, filters=RecallFilters()))
            embed.append(engine.last.embed_ms)
            total.append(engine.last.total_ms)
    return {
        "points": count, "fill_s": None if fill_s is None else round(fill_s, 1), "insert_s": round(insert_s, 1),
        "optimize_s": round(optimize_s, 1), "fill_peak_mb": {"inserting": inserting.peak,
                                                             "optimizing": optimizing.peak}, "cold_ms": round(cold_ms, 1), "cold_hits": len(first),
        "cold_split_s": startup,
        "warm_p50_ms": percentile(warm, 0.5), "warm_p95_ms": percentile(warm, 0.95),
        "filtered_p50_ms": percentile(filtered, 0.5), "filtered_p95_ms": percentile(filtered, 0.95),
        "timed_p50_ms": percentile(timed, 0.5), "timed_p95_ms": percentile(timed, 0.95),
        "in_process_load_s": round(load_s, 2), "in_process_p50_ms": percentile(total, 0.5),
        "in_process_p95_ms": percentile(total, 0.95),
        "embed_share": round(statistics.fmean(embed) / statistics.fmean(total), 2) if total else None,
        "service_rss_mb": memory.get("VmHWM"), "service_anon_mb": memory.get("RssAnon"),
        "paged_in_s": paged_in_s, "paged_in_mb": paged_in_mb, "major_faults": faults, **capped,
    }


def bench_recall_speed(sizes: list[int], queries: int = 200, workdir: Path | None = None,
                       memory_cap_mb: int | None = None) -> dict:
    """`workdir`: keep each size's workspace there (`points-N`) and, on a later run, measure it again
    without filling it (fill_s None). `memory_cap_mb`: the service runs in a memory cgroup that size."""
    rows = [measure_size(size, queries, workdir, memory_cap_mb) for size in sizes]
    return {"rows": rows, "note": "warm = client round trip through the service socket (query embedding "
            "included), after the service's page-in (paged_in_s); filtered = tier + date filter; timed = a "
            "query naming a time (\"last spring\"); embed_share = query embedding / in-process search time; "
            "major_faults = the service's reads from the disk over the queries; cap_peak_mb = the cgroup's "
            "peak (the service's memory and the page cache it reads)"}
