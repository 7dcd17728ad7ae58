"""`memory-pipeline bench soak`: D days × S synthetic sessions through emit → ingest, one run a day.

Reports total wall time, per-day time (first, median, last days and the slope, to show nothing
grows quadratically with history), peak RSS of this process and its children, store sizes
(workspace folders, Qdrant points and disk, Redis memory) and warm recall latency at the end.
"""

from __future__ import annotations

import resource
import statistics
import tempfile
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from memory_pipeline.config import Settings, set_process_environment
from memory_pipeline.resources.workspace import folder_bytes

QUERIES = ["redis connection pool", "pagination is slow", "CI cache key", "memory growth in the worker",
           "timezone bug in reports", "docker image size", "uv instead of pip", "small commits",
           "never push to main", "ruff formatting", "python version in production", "keep the old endpoint"]


def peak_rss_mb() -> float:
    """Peak resident set of this process and of its largest waited-for child (Linux: KiB)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return round(max(own, children) / 1024, 1)


def slope_seconds_per_day(times: list[float]) -> float:
    """Least-squares growth of the per-day time over the days (0 for flat, >0 grows)."""
    n = len(times)
    if n < 2:
        return 0.0
    mean_x, mean_y = (n - 1) / 2, statistics.fmean(times)
    num = sum((i - mean_x) * (t - mean_y) for i, t in enumerate(times))
    return num / sum((i - mean_x) ** 2 for i in range(n))


def store_sizes(workspace, settings: Settings) -> dict:
    from memory_pipeline.resources.redis.redis_store import connect_redis
    from memory_pipeline.resources.vectors.stores import workspace_store

    sizes = {name: folder_bytes(workspace.root / name)
             for name in ("events", "transcripts", "sessions", "observations", "memory")}
    for name in ("vectors", "redis", "llm-cache"):
        sizes[f"state/{name}"] = folder_bytes(workspace.state / name)
    client = connect_redis(None, workspace.state, settings.redis_idle_timeout, settings.runtime_dir)
    redis_memory = int(client.info("memory")["used_memory"])
    client.close()
    store = workspace_store(workspace.state, None, dimension=384)
    return {"bytes": sizes, "qdrant_points": store.count(), "qdrant_stores": len(store.shards()),
            "redis_used_memory": redis_memory}


def recall_latency(workspace, settings: Settings, queries: int) -> dict | None:
    try:
        from memory_pipeline.flows.recall.client import recall
    except ImportError:
        return None
    from memory_pipeline.resources.daemons.recall_service import stop_service

    try:
        for query in QUERIES[:3]:  # warm: the service starts and loads the model and the index
            recall(workspace, query, settings=settings, record=False)
        timings = []
        for n in range(queries):
            started = time.perf_counter()
            recall(workspace, QUERIES[n % len(QUERIES)], settings=settings, record=False)
            timings.append((time.perf_counter() - started) * 1000)
    finally:
        stop_service(workspace, settings.runtime_dir)
    timings.sort()
    return {"queries": queries, "p50_ms": round(timings[len(timings) // 2], 1),
            "p95_ms": round(timings[int(len(timings) * 0.95) - 1], 1)}


def bench_soak(load_definitions, days: int = 30, sessions_per_day: int = 50, turns: int = 6, queries: int = 50,
               root: Path | None = None, progress=None) -> dict:
    from benchmarks.synthetic import write_sessions
    from memory_pipeline.flows.intake.emit import emit_session_event
    from memory_pipeline.flows.intake.ingest import ingest
    from memory_pipeline.resources.redis.embedded_redis import EmbeddedRedis
    from memory_pipeline.resources.workspace import Workspace

    with tempfile.TemporaryDirectory(prefix="mp-soak-", dir=root) as tmp:
        base = Path(tmp)
        set_process_environment(MEMORY_WORKSPACE=str(base / "ws"), DAGSTER_HOME=str(base / "dagster"),
                                MEMORY_LLM_PROVIDER=Settings.from_env().llm_provider or "offline")
        workspace = Workspace(base / "ws").create()
        settings = Settings.from_env()
        definitions = load_definitions()  # after the environment names this workspace: settings bind at build
        first = date.today() - timedelta(days=days)
        per_day, sessions = [], 0
        started = time.perf_counter()
        try:
            for n in range(days):
                day = datetime.combine(first + timedelta(days=n), datetime.min.time(), tzinfo=timezone.utc)
                t0 = time.perf_counter()
                for i, path in enumerate(write_sessions(base / "sources" / day.date().isoformat(), sessions_per_day,
                                                        day, seed=1000 + n, turns=turns)):
                    emit_session_event(workspace, path, trigger="shutdown",
                                       captured_at=day.replace(hour=18) + timedelta(minutes=i), settings=settings)
                report = ingest(workspace, definitions, settings)
                if not report.success:
                    raise RuntimeError(f"ingest of {day.date()} failed: {[d.error for d in report.days]}")
                sessions += report.accepted
                per_day.append(time.perf_counter() - t0)
                if progress is not None:
                    progress(n + 1, days, per_day[-1])
            total = time.perf_counter() - started
            sizes = store_sizes(workspace, settings)
            latency = recall_latency(workspace, settings, queries)
        finally:
            EmbeddedRedis(workspace.state, settings.runtime_dir).stop()
    middle = statistics.median(per_day)
    return {
        "days": days,
        "sessions_per_day": sessions_per_day,
        "sessions": sessions,
        "wall_seconds": round(total, 1),
        "day_seconds_first": round(per_day[0], 2),
        "day_seconds_median": round(middle, 2),
        "day_seconds_last": round(per_day[-1], 2),
        "day_seconds_last3_mean": round(statistics.fmean(per_day[-3:]), 2),
        # the first day loads the model in this process: the growth is read from day 2 on
        "day_seconds_slope_per_day": round(slope_seconds_per_day(per_day[1:]), 3),
        "day_seconds": [round(t, 2) for t in per_day],
        "peak_rss_mb": peak_rss_mb(),
        "stores": sizes,
        "recall": latency,
    }
