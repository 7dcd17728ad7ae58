"""A child process of `bench engine`, so build, cold start, memory and kill -9 are a real process's.

    python -m benchmarks.engine_child build edge PATH DIMENSION SEED COUNT KNOBS
        create the shard with the named knobs, upsert COUNT generated points, optimize (the HNSW
        build), flush, close; print {"insert_s", "index_s", "indexed", "segments", "build_rss_mb",
        "build_anon_mb", "build_file_mb"} (this process's peak RSS and the peaks of its two parts)
    python -m benchmarks.engine_child cold today|edge PATH DIMENSION SEED
        open the store, answer one query (cold_ms from before the engine's imports, open_ms from
        the open), answer 100 more, print {"cold_ms", "open_ms", "open_read_mb", "open_cpu_ms",
        "rss_mb", "anon_mb", "file_mb"} (the service's, without the embedding model)
    python -m benchmarks.engine_child write today|edge PATH DIMENSION SEED
        upsert 500-point batches without end, printing "ack N" after each returns (N points
        acknowledged); the parent kills it with SIGKILL in the middle of a later batch

Peak RSS is the kernel's VmHWM of this process, never getrusage's ru_maxrss: Linux keeps
ru_maxrss across fork and exec, so a child started by a parent that once held 10 GB reports
10 GB (the 1M "cold peak" of session 6 was the parent's HNSW build).
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

QUERIES = 100


def cold(engine: str, path: Path, dimension: int, seed: int) -> dict:
    started = time.perf_counter()
    from benchmarks import engine_sides
    from benchmarks.engine_data import probes

    queries = probes(QUERIES + 1, dimension, seed)
    opened, before = time.perf_counter(), _io()
    if engine == "today":
        index = engine_sides.today_open(path, 0)
        ask = lambda probe: engine_sides.today_query(index, probe)  # noqa: E731
    else:
        from qdrant_edge import EdgeShard

        shard = EdgeShard.load(str(path))
        ask = lambda probe: engine_sides.edge_query(shard, probe)  # noqa: E731
    after = _io()
    first = ask(queries[0])
    cold_ms, open_ms = ((time.perf_counter() - t) * 1000 for t in (started, opened))
    for probe in queries[1:]:
        ask(probe)
    memory = _memory()
    return {"cold_ms": round(cold_ms), "open_ms": round(open_ms), "first_hits": len(first),
            "open_read_mb": round((after[0] - before[0]) / 1e6, 1), "open_cpu_ms": round((after[1] - before[1]) * 1000),
            "rss_mb": memory.get("VmHWM"), "anon_mb": memory.get("RssAnon"), "file_mb": memory.get("RssFile")}


def build(path: Path, dimension: int, seed: int, count: int, knobs_name: str) -> dict:
    """Knobs with a segment cap are built as the product builds: `flush()` after every batch (the
    write-ahead log cut back to its tail) and `optimize()` each time a cap's worth of points has
    arrived, so no HNSW spans more than one segment's points. The others: one `optimize()` at the end."""
    from benchmarks import engine_edge, engine_sides
    from benchmarks.engine_data import rows

    knobs = engine_edge.KNOBS[knobs_name]
    chunk = engine_edge.segment_points(dimension, knobs)
    shard = engine_edge.create(path, dimension, knobs)
    insert_s = index_s = 0.0  # the upserts (and flushes) alone: generating the points is not the engine's time
    done = 0
    for batch in rows(count, dimension, seed):
        points = engine_sides.edge_points(batch)
        t0 = time.perf_counter()
        engine_edge.upsert(shard, points)
        if chunk:
            shard.flush()
        insert_s += time.perf_counter() - t0
        done += len(batch)
        if chunk and done % chunk < len(batch) and done < count:
            index_s += _optimize(shard)
    index_s += _optimize(shard)
    info = shard.info()
    shard.flush()
    shard.close()
    return {"insert_s": round(insert_s, 1), "index_s": round(index_s, 1), "indexed": info.indexed_vectors_count,
            "segments": info.segments_count, "build_rss_mb": _memory().get("VmHWM")}


def _optimize(shard) -> float:
    t0 = time.perf_counter()
    shard.optimize()
    shard.flush()
    return time.perf_counter() - t0


def _memory() -> dict:
    """VmHWM (this process's peak RSS) and the RSS split in MB (Linux): anonymous memory is the
    process's own; file pages are memory-mapped store files the kernel may drop under pressure."""
    try:
        lines = Path("/proc/self/status").read_text().splitlines()
    except OSError:
        return {}
    fields = dict(line.split(":", 1) for line in lines)
    return {key: int(fields[key].split()[0]) // 1024 for key in ("VmHWM", "RssAnon", "RssFile") if key in fields}


def _io() -> tuple[int, float]:
    """Bytes this process has read from storage (page-cache hits are not counted) and its CPU seconds."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    try:
        fields = dict(line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
    except OSError:
        fields = {}
    return int(fields.get("read_bytes", 0)), usage.ru_utime + usage.ru_stime


def write(engine: str, path: Path, dimension: int, seed: int) -> None:
    from benchmarks import engine_edge, engine_sides
    from benchmarks.engine_data import rows

    if engine == "today":
        store = engine_sides.today_store(path, dimension)
        put = lambda batch: engine_sides.today_write(store, batch)  # noqa: E731
    else:
        shard = engine_edge.create(path, dimension, engine_edge.Knobs())
        put = lambda batch: engine_edge.upsert(shard, engine_sides.edge_points(batch))  # noqa: E731
    done = 0
    for batch in rows(10**9, dimension, seed, batch=500):
        put(batch)
        done += len(batch)
        print(f"ack {done}", flush=True)


def main(argv: list[str]) -> int:
    mode, engine, path, dimension, seed = argv[0], argv[1], Path(argv[2]), int(argv[3]), int(argv[4])
    if mode == "cold":
        print(json.dumps(cold(engine, path, dimension, seed)), flush=True)
    elif mode == "build":
        print(json.dumps(build(path, dimension, seed, int(argv[5]), argv[6])), flush=True)
    else:
        write(engine, path, dimension, seed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
