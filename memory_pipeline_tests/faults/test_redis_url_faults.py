"""Redis faults against a standalone redis-server reached through REDIS_URL (TCP, a password), as a
team runs it: the server dies mid-run and its operator brings it back; a wrong password."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from memory_pipeline_tests.faults.compare import assert_same_state, read_state
from memory_pipeline_tests.faults.harness import (
    emit_inputs,
    pause_env,
    run_cli,
    start_cli,
    using_workspace,
    wait_for_file,
)
from memory_pipeline_tests.support.services import TcpRedis, tcp_redis  # noqa: F401  (fixture)

pytestmark = pytest.mark.slow


def test_a_redis_server_killed_mid_run_and_restarted_lets_the_run_complete(workspaces, small_inputs, clean_small,
                                                                          tcp_redis: TcpRedis, tmp_path: Path):  # noqa: F811
    ws = workspaces.new("redis-url-killed")
    emit_inputs(ws, small_inputs)
    flag = tmp_path / "paused.flag"
    proc = start_cli(ws, "ingest", "--json", REDIS_URL=tcp_redis.url, MEMORY_REDIS_RETRY_SECONDS="3",
                     **pause_env("observe:after-write", flag, seconds=2))
    wait_for_file(flag, proc)
    tcp_redis.stop(signal.SIGKILL)
    time.sleep(4)  # down past the pause: the step meets the outage, writes the daily log and retries
    tcp_redis.start()  # same port, same append-only file
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-3000:]
    assert json.loads(out)["success"]
    with using_workspace(ws):
        assert_same_state(read_state(ws, redis_url=tcp_redis.url), clean_small)
    assert not (ws.state_path("redis") / "redis.pid").exists()  # the embedded server was never started


def test_a_wrong_redis_password_fails_clearly_without_printing_it(workspaces, small_inputs, tcp_redis: TcpRedis):  # noqa: F811
    ws = workspaces.new("redis-url-password")
    emit_inputs(ws, small_inputs)
    wrong = tcp_redis.url.replace(tcp_redis.password, "not-the-password")
    failed = run_cli(ws, "ingest", "--json", REDIS_URL=wrong)
    assert failed.returncode == 1, failed.stderr[-3000:]
    errors = [day["error"] for day in json.loads(failed.stdout)["days"]]
    assert errors and all(e.startswith("observations: Failure: Redis unreachable") for e in errors), errors
    assert all(f"redis://:***@127.0.0.1:{tcp_redis.port}/0" in e for e in errors), errors
    assert "not-the-password" not in failed.stdout + failed.stderr
