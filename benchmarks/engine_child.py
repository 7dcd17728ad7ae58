"""A child process of `bench engine`, so cold start, memory and kill -9 are a real process's.

    python -m benchmarks.engine_child cold today|edge PATH DIMENSION SEED
        open the store, answer one query (cold_ms from before the engine's imports, open_ms from
        the open), answer 100 more, print {"cold_ms", "open_ms", "rss_mb", "anon_mb", "file_mb"}
        (peak RSS and the split at the end: the service's, without the embedding model)
    python -m benchmarks.engine_child write today|edge PATH DIMENSION SEED
        upsert 500-point batches without end, printing "ack N" after each returns (N points
        acknowledged); the parent kills it with SIGKILL in the middle of a later batch
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
    opened = time.perf_counter()
    if engine == "today":
        index = engine_sides.today_open(path, 0)
        ask = lambda probe: engine_sides.today_query(index, probe)  # noqa: E731
    else:
        from qdrant_edge import EdgeShard

        shard = EdgeShard.load(str(path))
        ask = lambda probe: engine_sides.edge_query(shard, probe)  # noqa: E731
    first = ask(queries[0])
    cold_ms, open_ms = ((time.perf_counter() - t) * 1000 for t in (started, opened))
    for probe in queries[1:]:
        ask(probe)
    return {"cold_ms": round(cold_ms), "open_ms": round(open_ms), "first_hits": len(first),
            "rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024), **_anon()}


def _anon() -> dict:
    """RSS split (Linux): anonymous memory is the process's own; file pages are memory-mapped store
    files the kernel may drop under pressure (Edge's on-disk vectors, for one)."""
    try:
        fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    except OSError:
        return {}
    return {"anon_mb": int(fields["RssAnon"].split()[0]) // 1024, "file_mb": int(fields["RssFile"].split()[0]) // 1024}


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
    else:
        write(engine, path, dimension, seed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
