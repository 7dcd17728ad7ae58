"""Redis faults: the embedded redis-server killed mid-run, and Redis unreachable at start."""

from __future__ import annotations

import json
import os
import signal
import socket
import time

import pytest

from memory_pipeline.resources.files.daily_log import DailyLog
from memory_pipeline.resources.redis.embedded_redis import EmbeddedRedis, process_alive
from memory_pipeline.resources.files.observation_files import load_observations
from memory_pipeline_tests.faults.compare import assert_same_state, read_state
from memory_pipeline_tests.faults.harness import (
    DAYS,
    emit_inputs,
    ingest_here,
    pause_env,
    run_cli,
    start_cli,
    using_workspace,
    wait_for_file,
)
from memory_pipeline_tests.support.doors import embedded_redis

pytestmark = pytest.mark.slow


def answering_pid(server: EmbeddedRedis, attempts: int = 15) -> int | None:
    """The server's pid; a loaded machine can miss one 1 s PING, so ask a few times."""
    for _ in range(attempts):
        pid = server.running_pid()
        if pid is not None:
            return pid
        time.sleep(1)
    return None


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_redis_server_killed_mid_run_is_restarted_and_the_run_completes(workspaces, small_inputs, clean_small,
                                                                        tmp_path):
    ws = workspaces.new("redis-killed")
    emit_inputs(ws, small_inputs)
    flag = tmp_path / "paused.flag"
    proc = start_cli(ws, "ingest", "--json", **pause_env("observe:after-write", flag, seconds=2))
    wait_for_file(flag, proc)
    server = embedded_redis(ws.state)
    pid = answering_pid(server)
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err[-3000:]
    assert json.loads(out)["success"]
    assert not process_alive(pid) and answering_pid(server) not in (None, pid)  # a new server answers
    with using_workspace(ws):
        assert_same_state(read_state(ws), clean_small)


def test_redis_unreachable_at_start_fails_clearly_writes_the_log_then_completes(workspaces, small_inputs,
                                                                              clean_small):
    ws = workspaces.new("redis-down")
    emit_inputs(ws, small_inputs)
    failed = run_cli(ws, "ingest", "--json", REDIS_URL=f"redis://127.0.0.1:{closed_port()}/0")
    assert failed.returncode == 1, failed.stderr[-3000:]
    for day in json.loads(failed.stdout)["days"]:
        assert day["error"].startswith("observations: Failure: Redis unreachable; the daily log was written"), day
    for day in DAYS:  # the durable fallback: files and daily log, no hot list
        assert len(load_observations(ws, day)) == 10
        assert DailyLog(ws).read(day).count("<!-- dedupeKey: ") == 10

    report = ingest_here(ws)
    assert report.success and [d.day for d in report.days] == list(DAYS), report.as_dict()
    with using_workspace(ws):
        assert_same_state(read_state(ws), clean_small)
