"""The embedded redis-server and the memory:* key scheme, against a real server."""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memory_pipeline.errors import BadInputError, ServiceError
from memory_pipeline.resources.redis.embedded_redis import process_alive
from memory_pipeline.resources.redis.redis_store import EmbeddedRedis, RedisStore, connect_redis
from memory_pipeline_tests.support.doors import embedded_redis, redis_limits, runtime_dir
from memory_pipeline_tests.support.paths import PROJECT_ROOT

START_IN_CHILD = """
import sys, time
from pathlib import Path
from memory_pipeline.config import Settings
from memory_pipeline.resources.redis.redis_store import EmbeddedRedis
settings = Settings.from_env()
start_at = float(sys.argv[2])
time.sleep(max(0.0, start_at - time.time()))
print(EmbeddedRedis(Path(sys.argv[1]), settings.runtime_dir, idle_timeout=settings.redis_idle_timeout).ensure_running())
"""


def start_in_child(state_dir: Path, start_at: float = 0.0) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", START_IN_CHILD, str(state_dir), str(start_at)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def child_pid(process: subprocess.Popen) -> int:
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    return int(out.strip())


def wait_dead(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not process_alive(pid):
            return True
        time.sleep(0.02)
    return False


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def server(state_dir: Path):
    """An EmbeddedRedis that is stopped afterwards; every pid it had must be gone."""
    srv = embedded_redis(state_dir)
    seen: list[int] = []
    original = srv.ensure_running

    def ensure_running() -> int:
        pid = original()
        seen.append(pid)
        return pid

    srv.ensure_running = ensure_running  # record pids for the leak check below
    yield srv
    current = srv.running_pid()
    srv.stop()
    leaked = [pid for pid in {*seen, *([current] if current else [])} if not wait_dead(pid)]
    for pid in leaked:
        os.kill(pid, signal.SIGKILL)
    assert not leaked, f"redis-server processes left running: {leaked}"
    assert not srv.socket_path.exists() and not srv.pid_path.exists()


@pytest.fixture
def store(server: EmbeddedRedis) -> RedisStore:
    server.ensure_running()
    return RedisStore(server.client())


# --- the embedded server -------------------------------------------------------------


def test_server_listens_only_on_a_private_unix_socket(server: EmbeddedRedis) -> None:
    pid = server.ensure_running()
    client = server.client()
    assert client.config_get("port") == {"port": "0"}
    assert client.config_get("appendonly") == {"appendonly": "yes"}
    assert stat.S_ISSOCK(server.socket_path.stat().st_mode)
    assert stat.S_IMODE(server.socket_path.stat().st_mode) & 0o077 == 0
    assert stat.S_IMODE(server.dir.stat().st_mode) == 0o700
    assert int(server.pid_path.read_text()) == pid == server.running_pid()
    assert "ready to accept connections" in server.log_path.read_text()
    assert server.ensure_running() == pid  # reused, not restarted


def test_data_survives_stop_and_start(server: EmbeddedRedis) -> None:
    first = server.ensure_running()
    server.client().set("k", "kept")
    server.stop()
    assert wait_dead(first)
    assert server.running_pid() is None
    second = server.ensure_running()
    assert second != first
    assert server.client().get("k") == "kept"


def test_data_survives_sigkill_of_the_server(server: EmbeddedRedis) -> None:
    first = server.ensure_running()
    server.client().set("k", "written before the crash")
    os.kill(first, signal.SIGKILL)
    assert wait_dead(first)
    assert server.socket_path.exists() and server.pid_path.exists()  # left behind, stale
    second = server.ensure_running()
    assert second != first
    assert server.client().get("k") == "written before the crash"


def test_another_process_reuses_the_running_server(server: EmbeddedRedis, state_dir: Path) -> None:
    pid = server.ensure_running()
    assert child_pid(start_in_child(state_dir)) == pid


def test_two_processes_starting_at_once_make_one_server(server: EmbeddedRedis, state_dir: Path) -> None:
    start_at = time.time() + 1.5
    children = [start_in_child(state_dir, start_at) for _ in range(2)]
    pids = {child_pid(c) for c in children}
    assert len(pids) == 1
    pid = pids.pop()
    assert server.ensure_running() == pid  # still running after both starters exited
    assert process_alive(pid)


def test_stale_pid_file_and_dead_socket_are_recovered(server: EmbeddedRedis) -> None:
    server.dir.mkdir(parents=True, mode=0o700)
    gone = subprocess.Popen(["true"])
    gone.wait()
    server.pid_path.write_text(f"{gone.pid}\n")
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(str(server.socket_path))
    dead.close()  # the socket file stays, nothing listens
    pid = server.ensure_running()
    assert pid != gone.pid
    assert int(server.pid_path.read_text()) == pid
    assert server.client().ping()


def test_connect_redis_uses_the_embedded_server(server: EmbeddedRedis, state_dir: Path) -> None:
    client = connect_redis(None, state_dir, *redis_limits())
    assert client.ping()
    pid = server.ensure_running()
    assert int(client.info("server")["process_id"]) == pid


def test_connect_redis_unreachable_url_is_a_service_error() -> None:
    with pytest.raises(ServiceError, match=r"Redis unreachable at redis://127\.0\.0\.1:1/0"):
        connect_redis("redis://127.0.0.1:1/0", Path("/nonexistent"), *redis_limits())
    with pytest.raises(ServiceError) as caught:
        connect_redis("redis://:hunter2@127.0.0.1:1/0", Path("/nonexistent"), *redis_limits())
    assert "hunter2" not in str(caught.value)


# --- the key scheme ------------------------------------------------------------------


def test_observe_lock_is_set_once_and_released_only_by_its_holder(store: RedisStore) -> None:
    assert store.acquire_observe_lock("dk1", "run-a", ttl=60)
    assert not store.acquire_observe_lock("dk1", "run-b", ttl=60)
    assert store.get_observe_lock("dk1") == "run-a"
    assert 0 < store.client.ttl("memory:observe:lock:dk1") <= 60
    assert not store.release_observe_lock("dk1", "run-b")
    assert store.get_observe_lock("dk1") == "run-a"
    assert store.release_observe_lock("dk1", "run-a")
    assert store.get_observe_lock("dk1") is None
    assert store.acquire_observe_lock("dk1", "run-b")
    assert store.release_observe_lock("dk1")


def observation(key: str, text: str = "* 🔴 (09:15) decided X") -> dict:
    return {"dedupeKey": key, "sessionId": "s1", "observations": text, "schemaVersion": 1}


def test_push_observation_is_idempotent_by_dedupe_key(store: RedisStore) -> None:
    day = "2026-02-15"
    assert store.push_observation(day, observation("a"))
    assert not store.push_observation(day, observation("a", "a retry with other text"))
    assert store.push_observation(day, observation("b"))
    assert [e["dedupeKey"] for e in store.observations(day)] == ["a", "b"]
    assert store.observations(day)[0]["observations"] == "* 🔴 (09:15) decided X"
    assert store.client.smembers(f"memory:observations:{day}:keys") == {"a", "b"}
    thirty_days = 30 * 86_400
    for key in (f"memory:observations:{day}", f"memory:observations:{day}:keys"):
        assert thirty_days - 60 < store.client.ttl(key) <= thirty_days
    with pytest.raises(BadInputError):
        store.push_observation(day, {"observations": "no key"})


def test_replace_observation_overwrites_by_index(store: RedisStore) -> None:
    day = "2026-02-16"
    store.push_observation(day, observation("a"))
    store.push_observation(day, observation("b"))
    store.replace_observation(day, 1, observation("b", "distilled"))
    assert [e["observations"] for e in store.observations(day)] == ["* 🔴 (09:15) decided X", "distilled"]
    assert store.observations("2026-01-01") == []


def test_reflect_trigger_fires_once_per_day(store: RedisStore) -> None:
    assert store.mark_reflect_triggered("2026-02-15")
    assert not store.mark_reflect_triggered("2026-02-15")
    assert store.mark_reflect_triggered("2026-02-16")
    assert 0 < store.client.ttl("memory:reflect:triggered:2026-02-15") <= 86_400


def test_proposals_hash_and_pending_list(store: RedisStore) -> None:
    store.save_proposal("p1", {"section": "Joel", "text": "Prefers slog", "sources": ["o1", "o2"]})
    assert store.get_proposal("p1") == {"section": "Joel", "text": "Prefers slog", "sources": '["o1", "o2"]'}
    assert 0 < store.client.ttl("memory:review:proposal:p1") <= 30 * 86_400
    assert store.get_proposal("missing") is None
    assert store.add_pending("p1") and store.add_pending("p2")
    assert not store.add_pending("p1")
    assert store.pending() == ["p1", "p2"]
    assert store.remove_pending("p1")
    assert not store.remove_pending("p1")
    assert store.pending() == ["p2"]
    assert store.client.ttl("memory:review:pending") == -1
    assert store.ping()


def test_a_workspace_too_deep_for_a_unix_socket_gets_a_short_private_socket(tmp_path: Path) -> None:
    from memory_pipeline.resources.workspace import unix_socket_path

    deep = tmp_path / ("d" * 60) / ("e" * 60) / "state"
    server = embedded_redis(deep)
    assert server.socket_path.parent != server.dir
    assert unix_socket_path(server.dir, "redis.sock", runtime_dir()) == server.socket_path  # stable: every process finds the same one
    try:
        server.ensure_running()
        assert server.client().ping()
        assert server.socket_path.parent.stat().st_mode & 0o777 == 0o700
    finally:
        server.stop()
    assert not server.socket_path.exists()
