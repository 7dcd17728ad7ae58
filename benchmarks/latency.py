"""`memory-pipeline bench latency`: the seconds a user waits, medians over several runs.

- status: `memory-pipeline status` in a fresh process, on a workspace with a day ingested.
- recall_cold: `memory-pipeline recall "…"` in a fresh process with no service running (every
  workspace service stopped before each run); recall_warm: the same with the service up.
- emit_to_log: a 200-message session emitted while `dagster dev` (webserver + daemon) runs; seconds
  until its section is in the daily log, until its entry is on the Redis hot list, and until the
  run that observed it has finished (indexes included).
- day: a day of real transcripts (the shared fixtures, cycled to 23 sessions) through `ingest`
  in a fresh process, and the message index's embedding rate against a raw sentence-transformers
  encode of the same texts.
Every figure comes from a subprocess, so imports and model loads are counted as a user meets them.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from benchmarks.timing import cli, summary
from memory_pipeline.config import child_environment, set_process_environment

PHASES = ("status", "recall", "emit", "day")  # cli/bench.py LATENCY_PHASES
QUERY = "why did the redis connection pool fail"


def bench_latency(phases: tuple[str, ...] = PHASES, runs: int = 5, day_sessions: int = 23,
                  fixtures: Path | None = None, progress=None) -> dict:
    from benchmarks.latency_day import bench_day, emit_fixture_day
    from benchmarks.latency_emit import bench_emit_to_log

    say = progress or (lambda message: None)
    figures: dict = {"load_average_before": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="mp-latency-") as tmp:
        root = Path(tmp)
        env = environment(root / "ws", root / "dagster")
        if "day" in phases or "status" in phases or "recall" in phases:
            say("emitting a day of fixture transcripts")
            source = emit_fixture_day(root, env, day_sessions, fixtures)
            say(f"ingesting {source['sessions']} sessions, {source['megabytes']} MB")
            figures["day"] = bench_day(root, env, source, measure_raw="day" in phases)
        if "status" in phases:
            say("timing status")
            figures["status"] = summary([cli(env, "status", "--json") for _ in range(runs)])
        if "recall" in phases:
            say("timing cold and warm recall")
            figures.update(bench_recall(env, runs))
        cli(env, "stop")
        if "emit" in phases:
            say("timing emit → daily log under dagster dev")
            figures["emit_to_log"] = bench_emit_to_log(root / "emit", runs, progress=say)
    figures["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return figures


def environment(workspace: Path, dagster_home: Path) -> dict[str, str]:
    set_process_environment(MEMORY_WORKSPACE=str(workspace), DAGSTER_HOME=str(dagster_home))
    dagster_home.mkdir(parents=True, exist_ok=True)
    return child_environment(MEMORY_WORKSPACE=str(workspace), DAGSTER_HOME=str(dagster_home), HF_HUB_OFFLINE="1",
                             PYTHONPATH=os.pathsep.join(p for p in sys.path if p and Path(p).is_dir()))


def bench_recall(env: dict[str, str], runs: int) -> dict:
    cold = []
    for _ in range(runs):
        cli(env, "stop")
        cold.append(cli(env, "recall", QUERY, "--json"))
    warm = [cli(env, "recall", QUERY, "--json") for _ in range(runs)]
    return {"recall_cold": summary(cold), "recall_warm_process": summary(warm)}
