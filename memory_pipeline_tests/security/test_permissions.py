"""Workspace files user-only; the embedded redis-server on a user-only unix socket, no TCP port."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from memory_pipeline.resources.redis.redis_store import connect_redis
from memory_pipeline_tests.faults.harness import dagster_home, emit_inputs, ingest_here, write_inputs
from memory_pipeline_tests.support.doors import embedded_redis, redis_limits

pytestmark = pytest.mark.slow


def loose_modes(*roots: Path) -> list[str]:
    """Paths whose group/other bits are set, or dirs and sockets not exactly 0700."""
    found = []
    for root in roots:
        for path in [root, *root.rglob("*")]:
            if path.is_symlink():
                continue
            mode = stat.S_IMODE(path.lstat().st_mode)
            exact = path.is_dir() or path.is_socket()
            if mode & 0o077 or (exact and mode != 0o700):
                found.append(f"{oct(mode)} {path.relative_to(root)}")
    return found


def test_every_workspace_file_is_user_only_after_a_run(workspaces, tmp_path):
    previous = os.umask(0o022)  # a typical login umask
    try:
        ws = workspaces.new("modes")
        emit_inputs(ws, write_inputs(tmp_path / "inputs", 2))
        assert ingest_here(ws).success
        assert loose_modes(ws.root, dagster_home(ws)) == []
    finally:
        os.umask(previous)


def listening_tcp_inodes() -> set[int]:
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if os.path.exists(table):
            for row in Path(table).read_text().splitlines()[1:]:
                fields = row.split()
                if fields[3] == "0A":  # LISTEN
                    found.add(int(fields[9]))
    return found


def socket_inodes(pid: int) -> set[int]:
    """The inodes of the sockets `pid` holds open; a descriptor closed while we look is passed over."""
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            if os.readlink(fd).startswith("socket:"):
                found.add(os.stat(fd).st_ino)
        except FileNotFoundError:
            continue
    return found


def test_embedded_redis_listens_only_on_a_user_only_unix_socket(tmp_path):
    server = embedded_redis(tmp_path / "state")
    pid = server.ensure_running()
    try:
        client = connect_redis(None, tmp_path / "state", *redis_limits())
        assert client.config_get("port") == {"port": "0"}
        assert client.config_get("unixsocketperm") == {"unixsocketperm": "700"}
        client.close()
        assert server.socket_path.is_socket() and stat.S_IMODE(server.socket_path.stat().st_mode) == 0o700
        assert stat.S_IMODE(server.dir.stat().st_mode) == 0o700
        sockets = socket_inodes(pid)
        assert sockets and not sockets & listening_tcp_inodes()
    finally:
        server.stop()
