"""emit → daily log under a real `dagster dev` (webserver + daemon), part of `bench latency`.

Each run writes a 200-message Claude Code session, emits it for today, and times: its section in
the daily log, its entry on the Redis hot list, and the end of every run it caused (indexes
included). The next run starts when no run is in flight. A warm-up event first lets the daemon
and the sensor start; it is not counted.
"""

from __future__ import annotations

import random
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path

from memory_pipeline.config import child_environment
from memory_pipeline.resources.daemons.dagster_dev import dagster_dev

ACTIVE = ("QUEUED", "NOT_STARTED", "STARTING", "STARTED", "CANCELING")
TURNS = 67  # three transcript lines a turn (ask, answer with a tool call, tool result): ~200 messages


def write_session(folder: Path, seed: int) -> Path:
    from benchmarks.synthetic import make_session

    rng = random.Random(seed)
    session = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    start = datetime.now().astimezone().replace(hour=0, minute=5, second=0, microsecond=0)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    path.write_text(make_session(rng, session, start + timedelta(minutes=seed), TURNS), encoding="utf-8")
    return path


def bench_emit_to_log(root: Path, runs: int, progress=None) -> dict:
    from benchmarks.timing import summary
    from memory_pipeline.config import set_process_environment
    from memory_pipeline.flows.runs import get_instance
    from memory_pipeline.resources.workspace import Workspace

    say = progress or (lambda message: None)
    workspace_root, home = root / "ws", root / "dagster"
    home.mkdir(parents=True, exist_ok=True)
    set_process_environment(MEMORY_WORKSPACE=str(workspace_root), DAGSTER_HOME=str(home))
    env = child_environment(MEMORY_WORKSPACE=str(workspace_root), DAGSTER_HOME=str(home), HF_HUB_OFFLINE="1")
    workspace = Workspace(workspace_root).create()
    settings = Settings.from_env()  # once, after the environment names this workspace
    instance = get_instance(workspace, settings)
    rows = []
    with dagster_dev(root / "dagster-dev.log", env):
        for n in range(runs + 1):
            row = one_event(workspace, settings, instance, root / "transcripts", n)
            say(f"emit {n}{' (warm-up)' if n == 0 else ''}: {row}")
            if n:
                rows.append(row)
    from memory_pipeline.resources.daemons.services import stop_workspace_services

    stop_workspace_services(workspace, settings.runtime_dir)
    return {name: summary([r[name] for r in rows]) for name in ("log_s", "hot_list_s", "runs_done_s")} | {
        "messages_per_session": rows[0]["messages"]}


def one_event(workspace, settings, instance, folder: Path, n: int, timeout: float = 600.0) -> dict:
    from memory_pipeline.flows.intake.emit import emit_session_event

    path = write_session(folder, n)
    started = time.perf_counter()
    result = emit_session_event(workspace, path, trigger="shutdown", settings=settings)
    day, key = result.event.day, result.event.data.dedupe_key
    logged = hot = None
    while time.perf_counter() - started < timeout:
        now = time.perf_counter() - started
        if logged is None and key in _read(workspace.daily_log(day)):
            logged = now
        if logged is not None and hot is None and _on_hot_list(workspace, settings, day, key):
            hot = now
        if hot is not None and not _active_runs(instance):
            return {"log_s": logged, "hot_list_s": hot, "runs_done_s": time.perf_counter() - started,
                    "messages": result.event.data.message_count}
        time.sleep(0.2)
    raise RuntimeError(f"event {n} not processed within {timeout} s (log at {logged}, hot list at {hot})")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def _on_hot_list(workspace, settings, day: str, key: str) -> bool:
    from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis

    client = connect_redis(settings.redis_url, workspace.state, settings.redis_idle_timeout, settings.runtime_dir)
    try:
        return any(entry.get("dedupeKey") == key for entry in RedisStore(client).observations(day))
    finally:
        client.close()


def _active_runs(instance) -> bool:
    from dagster import DagsterRunStatus, RunsFilter

    statuses = [DagsterRunStatus[name] for name in ACTIVE]
    return bool(instance.get_runs(filters=RunsFilter(statuses=statuses), limit=1))
