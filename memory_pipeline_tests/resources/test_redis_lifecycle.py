"""The embedded redis-server's lifecycle: idle shutdown, a removed workspace, stale servers, the runtime folder."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

import pytest

from memory_pipeline.resources.processes import process_alive
from memory_pipeline.resources.redis.redis_store import connect_redis
from memory_pipeline.resources.workspace import private_runtime_dir
from memory_pipeline_tests.support.doors import embedded_redis, redis_limits


def wait_dead(*pids: int, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(process_alive(pid) for pid in pids):
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def state_dir(tmp_path: Path):
    folder = tmp_path / "state"
    yield folder
    if folder.exists():
        embedded_redis(folder).stop()


def test_an_idle_server_persists_stops_and_the_next_client_starts_it_again(state_dir: Path) -> None:
    server = embedded_redis(state_dir, idle_timeout=1)
    pid = server.ensure_running()
    watchdog = server.watchdog_pid()
    assert watchdog is not None
    client = server.client()
    client.set("memory:test", "kept")
    client.close()
    assert wait_dead(pid, watchdog)
    assert server.running_pid() is None and not server.pid_path.exists()
    again = connect_redis(None, state_dir, *redis_limits())  # transparently started again, with the data
    assert again.get("memory:test") == "kept"
    assert int(again.info("server")["process_id"]) != pid


def test_a_connected_client_keeps_an_idle_server_running(state_dir: Path) -> None:
    server = embedded_redis(state_dir, idle_timeout=1)
    pid = server.ensure_running()
    client = server.client()
    assert client.ping()
    time.sleep(4)  # four idle timeouts with a client connected
    assert process_alive(pid) and server.running_pid() == pid
    client.close()
    assert wait_dead(pid)


def test_removing_the_workspace_stops_its_server_and_watchdog(state_dir: Path) -> None:
    server = embedded_redis(state_dir)
    pid = server.ensure_running()
    watchdog = server.watchdog_pid()
    shutil.rmtree(state_dir)
    assert wait_dead(pid, watchdog)


def test_a_start_stops_the_server_of_a_removed_workspace_at_the_same_path(state_dir: Path) -> None:
    old = embedded_redis(state_dir)
    old_pid = old.ensure_running()
    os.kill(old.watchdog_pid(), signal.SIGKILL)  # nothing watches it: it outlives its folder
    shutil.rmtree(state_dir)
    assert process_alive(old_pid)
    new = embedded_redis(state_dir)
    new_pid = new.ensure_running()
    assert new_pid != old_pid and not process_alive(old_pid)
    assert new.server_pids() == [new_pid] and new.running_pid() == new_pid


@pytest.mark.skipif(os.getuid() != 0, reason="making a folder owned by another user needs root")
def test_a_runtime_folder_made_by_another_user_is_refused_for_a_private_one(tmp_path: Path, monkeypatch, request) -> None:
    base = Path(tempfile.mkdtemp(prefix="mp-run-"))  # short: a socket path must stay under ~100 bytes
    request.addfinalizer(lambda: shutil.rmtree(base, ignore_errors=True))
    taken = base / f"memory-pipeline-{os.getuid()}"
    taken.mkdir(mode=0o755)
    os.chown(taken, 65534, 65534)
    open_to_all = base / f"memory-pipeline-{os.getuid()}-1"
    open_to_all.mkdir()
    open_to_all.chmod(0o777)
    chosen = private_runtime_dir(base)
    assert chosen == base / f"memory-pipeline-{os.getuid()}-2"
    assert chosen.stat().st_mode & 0o777 == 0o700 and private_runtime_dir(base) == chosen

    state = tmp_path / ("d" * 60) / ("e" * 60) / "state"
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "not-this-one"))
    assert embedded_redis(state, runtime_dir=base).socket_path.parent == chosen  # the door's value, not the environment's
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(base))
    server = embedded_redis(state)  # the door's value, read from the environment
    assert server.socket_path.parent == chosen
    try:
        assert server.ensure_running() and server.client().ping()
    finally:
        server.stop()
