"""`memory-pipeline bench engine`: today's engine and Qdrant Edge side by side.

For each size: both engines filled with the same generated points (`engine_data`), then, per
engine, insert time, index time (today: reading the store into the recall index and writing the
recall cache; Edge: `optimize()`, the HNSW build), warm hybrid query p50/p95 in-process (query
vectors given: the embedding model is left out of both), cold start and peak RSS in a fresh
process (`engine_child`), bytes on disk, and the share of today's top 10 that Edge returns
(overlap@10: HNSW's approximation plus BM25 statistics). With `days`: that many days of a heavy
user's history through `import` and `ingest` (`engine_history`). Once per run: kill -9 during a write.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import engine_edge, engine_sides
from benchmarks.engine_data import probes, rows
from benchmarks.paths import ROOT
from benchmarks.recall_speed import percentile
from memory_pipeline.config import child_environment
from memory_pipeline.resources.workspace import folder_bytes

DIMENSION = 384
SEED = 11


def _child(*args: str) -> subprocess.Popen:
    env = child_environment(PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "benchmarks.engine_child", *args], env=env,
                            stdout=subprocess.PIPE, text=True)


def _cold(engine: str, path: Path) -> dict:
    child = _child("cold", engine, str(path), str(DIMENSION), str(SEED))
    out, _ = child.communicate()
    return json.loads(out.strip().splitlines()[-1])


def _watch(child: subprocess.Popen) -> dict:
    """The peaks of a child's anonymous and file-backed RSS (Linux), sampled from here five times a second
    until it exits (its stdout is one short line, so waiting on the pipe later cannot block it)."""
    status, anon, file = Path(f"/proc/{child.pid}/status"), 0, 0
    while child.poll() is None:
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines())
            anon = max(anon, int(fields["RssAnon"].split()[0]) // 1024)
            file = max(file, int(fields["RssFile"].split()[0]) // 1024)
        except (OSError, KeyError, ValueError):
            pass
        time.sleep(0.2)
    return {"build_anon_mb": anon, "build_file_mb": file}


def _timed(ask, queries) -> tuple[list[list[str]], list[float]]:
    answers, ms = [], []
    for probe in queries:
        t0 = time.perf_counter()
        answers.append(ask(probe))
        ms.append((time.perf_counter() - t0) * 1000)
    return answers, ms


def measure_today(count: int, folder: Path, queries, store_max: int) -> tuple[dict, list[list[str]]]:
    """Up to `store_max` points through the store (qdrant-client local mode is ~40 points/s here, with
    one store per week); past it, straight into the recall cache the service loads (no insert figure)."""
    from memory_pipeline.resources.workspace import Workspace

    workspace = Workspace(folder).create()
    insert_s = _fill_today(workspace, count) if count <= store_max else None
    t0 = time.perf_counter()
    index = engine_sides.today_open(folder, DIMENSION) if insert_s is not None else _cache_today(workspace, count)
    index_s = time.perf_counter() - t0
    answers, ms = _timed(lambda p: engine_sides.today_query(index, p), queries)
    del index
    return {"engine": "today", "insert_s": round(insert_s, 1) if insert_s is not None else None,
            "index_s": round(index_s, 1), "p50_ms": percentile(ms, 0.5), "p95_ms": percentile(ms, 0.95),
            **_cold("today", folder), "disk_mb": round(folder_bytes(folder / "state") / 1e6, 1)}, answers


def _fill_today(workspace, count: int) -> float:
    """Today's week stores, written as the bench wrote them before the move (`recall_speed.fill_store`, whose
    store is now the Edge shard): 2,000 points per upsert into each week's store; the seconds taken."""
    from memory_pipeline.resources.vectors.vector_store import StorePoint

    store = engine_sides.today_store(workspace.root, DIMENSION)
    started = time.perf_counter()
    weeks: dict[str, list] = {}

    def flush(where: str) -> None:
        batch = weeks.pop(where)
        shard = store.for_day(batch[0].payload["date"])
        with shard.session():
            shard.ensure_collection()
            shard.upsert(batch)

    for batch in rows(count, DIMENSION, SEED):
        for r in batch:
            where = store.for_day(r.payload["date"]).where()
            weeks.setdefault(where, []).append(StorePoint(id=r.id, text=r.text, dense=r.dense.tolist(), sparse=r.sparse,
                                                          payload={k: v for k, v in r.payload.items() if k != "text"}))
            if len(weeks[where]) == 2000:
                flush(where)
    for where in list(weeks):
        flush(where)
    return time.perf_counter() - started


def _cache_today(workspace, count: int):
    """The recall index built from columns and saved as the recall cache, at a fresh generation."""
    import numpy as np

    from benchmarks.today_cache import save_columns
    from memory_pipeline.resources.vectors.recall_index import RecallIndex

    ids, payloads, dense = [], [], []
    for batch in rows(count, DIMENSION, SEED):
        ids.extend(r.id for r in batch)
        payloads.extend(r.payload for r in batch)
        dense.append(np.stack([r.dense for r in batch]))
    generation = f"bench-{count}"
    workspace.state_path("index_generation").write_text(generation, encoding="utf-8")
    index = RecallIndex.from_columns(ids, payloads, np.concatenate(dense), generation=generation)
    save_columns(workspace.state_path("recall_cache"), generation, ids, payloads, index.dense)
    return index


def measure_edge(count: int, folder: Path, knobs: str, queries, reference) -> dict:
    """Built in a child (its peak RSS is the build's alone), then queried warm here and cold in another child."""
    from qdrant_edge import EdgeShard

    child = _child("build", "edge", str(folder), str(DIMENSION), str(SEED), str(count), knobs)
    peaks = _watch(child)
    out, _ = child.communicate()
    if child.returncode:
        raise RuntimeError(f"the {knobs} build of {count} points failed (exit {child.returncode})")
    built = {**json.loads(out.strip().splitlines()[-1]), **peaks}
    shard = EdgeShard.load(str(folder))
    answers, ms = _timed(lambda p: engine_sides.edge_query(shard, p), queries)
    _, rrf = _timed(lambda p: engine_edge.hybrid_rrf(shard, p.dense.tolist(), p.terms, p.project), queries)
    shard.close()
    overlap = [len(set(a) & set(b)) / max(1, len(b)) for a, b in zip(answers, reference, strict=True)] \
        if reference else []
    return {"engine": f"edge {knobs}", **built, "p50_ms": percentile(ms, 0.5), "p95_ms": percentile(ms, 0.95),
            "rrf_p95_ms": percentile(rrf, 0.95), **_cold("edge", folder), "disk_mb": round(folder_bytes(folder) / 1e6, 1),
            "wal_mb": round(folder_bytes(folder / "wal") / 1e6, 1),
            "overlap10": round(sum(overlap) / len(overlap), 3) if overlap else None}


def kill_during_write(engine: str, folder: Path) -> dict:
    """A writer killed with SIGKILL mid-batch; the store reopened must hold every acknowledged point."""
    child = _child("write", engine, str(folder), str(DIMENSION), str(SEED))
    acked, stamps = 0, []
    assert child.stdout is not None
    while len(stamps) < 6:
        line = child.stdout.readline()
        if not line:
            break
        acked = int(line.split()[1])
        stamps.append(time.perf_counter())
    gap = (stamps[-1] - stamps[1]) / max(1, len(stamps) - 2) if len(stamps) > 2 else 0.1
    time.sleep(gap / 2)  # half-way through the next batch
    child.send_signal(signal.SIGKILL)
    child.wait()
    for line in child.stdout:  # acks printed before the kill landed
        acked = int(line.split()[1])
    ids = [r.id for batch in rows(acked, DIMENSION, SEED, batch=500) for r in batch]
    held = engine_sides.today_held(folder, DIMENSION, ids) if engine == "today" else \
        engine_sides.edge_held(folder, ids)
    return {"engine": engine, "acknowledged": acked, "held": held, "lost": acked - held}


def bench_engine(sizes: list[int], knobs: list[str], queries: int = 200, store_max: int = 10_000,
                 kill: bool = True, today_max: int = 200_000, days: int = 0, per_day: int = 1000,
                 onto: Path | None = None) -> dict:
    asked = probes(queries, DIMENSION, SEED + 1)
    table = []
    for count in sizes:
        with tempfile.TemporaryDirectory(prefix="mp-engine-") as tmp:
            reference = None
            if count <= today_max:  # past it the recall index needs several GB here: extrapolated instead
                row, reference = measure_today(count, Path(tmp) / "today", asked, store_max)
                table.append({"points": count, **row})
                _flush_row(table[-1])
            for name in knobs:
                table.append({"points": count, **measure_edge(count, Path(tmp) / name, name, asked, reference)})
                _flush_row(table[-1])
    history = []
    if days:
        from benchmarks.engine_history import TODAY_HISTORY, bench_history

        history = [TODAY_HISTORY, {"engine": "edge shipped", **bench_history(days, per_day, progress=_say, onto=onto)}]
        _flush_row(history[-1])
    kills = []
    if kill:
        for engine in ("today", "edge"):
            with tempfile.TemporaryDirectory(prefix="mp-kill-") as tmp:
                kills.append(kill_during_write(engine, Path(tmp) / engine))
    return {"rows": table, "history": history, "kill": kills, "load": os.getloadavg()}


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _flush_row(row: dict) -> None:
    print(json.dumps(row), file=sys.stderr, flush=True)  # a long run shows each row as it lands
