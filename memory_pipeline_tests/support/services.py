"""Real servers for the deployment tests: PostgreSQL (Debian's `postgresql` package, `initdb` +
`pg_ctl` in a temporary folder) and a standalone redis-server on TCP with a password.

Each is started for the test that asks for it and stopped after; a test skips with the reason
when a server cannot run here. As root, PostgreSQL runs as the `postgres` user (it refuses root).
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

INSTALL_HINT = "install Debian's postgresql package (`make install` does it as root with apt-get)"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def postgres_bin() -> Path | None:
    """The newest /usr/lib/postgresql/<version>/bin with initdb and pg_ctl, else the PATH's."""
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True):
        if Path(folder, "initdb").is_file() and Path(folder, "pg_ctl").is_file():
            return Path(folder)
    found = shutil.which("initdb")
    return Path(found).parent if found and shutil.which("pg_ctl") else None


@dataclass(frozen=True)
class Postgres:
    url: str  # postgresql+psycopg2://user:password@127.0.0.1:port/dagster (SQLAlchemy 2.1 defaults to psycopg 3)
    port: int


def _as_postgres_user(argv: list[str], user: str | None, **kwargs) -> subprocess.CompletedProcess:
    command = ["runuser", "-u", user, "--", *argv] if user else argv
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, **kwargs)


def _postgres_user() -> str | None:
    """None when not root; 'postgres' when root and that user exists; else skip."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip(f"PostgreSQL refuses to run as root and there is no postgres user: {INSTALL_HINT}")
    if shutil.which("runuser") is None:
        pytest.skip("running as root without `runuser` to start PostgreSQL as the postgres user")
    return "postgres"


@contextmanager
def postgres_server() -> Iterator[Postgres]:
    """A fresh PostgreSQL cluster with a password-protected `dagster` database; removed after."""
    binaries = postgres_bin()
    if binaries is None:
        pytest.skip(f"PostgreSQL binaries (initdb, pg_ctl) not found: {INSTALL_HINT}")
    try:
        import dagster_postgres  # noqa: F401
    except ImportError:
        pytest.skip("the dagster-postgres package is not installed (pip install -e '.[test]')")
    user = _postgres_user()
    root = Path(tempfile.mkdtemp(prefix="memory-pg-"))  # outside pytest's root-only tmp folders
    password, port = secrets.token_hex(12), free_port()
    (root / "pw").write_text(password + "\n", encoding="utf-8")
    if user:
        shutil.chown(root, user)
        shutil.chown(root / "pw", user)
    data, log = root / "data", root / "server.log"
    initdb = _as_postgres_user([str(binaries / "initdb"), "-D", str(data), "-U", "memory", "--pwfile", str(root / "pw"),
                                "-A", "scram-sha-256", "-E", "UTF8", "--no-instructions"], user)
    if initdb.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"initdb failed: {initdb.stderr[-2000:]}")
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
    pg_ctl = [str(binaries / "pg_ctl"), "-D", str(data), "-l", str(log)]
    try:
        started = _as_postgres_user([*pg_ctl, "-o", options, "-w", "-t", "60", "start"], user)
        if started.returncode != 0:
            pytest.fail(f"pg_ctl start failed: {started.stderr[-1000:]} {log.read_text()[-2000:] if log.exists() else ''}")
        created = _as_postgres_user([str(binaries / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "memory",
                                     "dagster"], user, env={**os.environ, "PGPASSWORD": password})
        if created.returncode != 0:
            pytest.fail(f"createdb failed: {created.stderr[-2000:]}")
        yield Postgres(f"postgresql+psycopg2://memory:{password}@127.0.0.1:{port}/dagster", port)
    finally:
        _as_postgres_user([*pg_ctl, "-m", "immediate", "-w", "-t", "60", "stop"], user)
        shutil.rmtree(root, ignore_errors=True)


@dataclass(frozen=True)
class RedisServer:
    url: str  # redis://:password@127.0.0.1:port/0
    port: int
    password: str
    pid: int


def _ping(port: int, password: str) -> bool:
    import redis

    client = redis.Redis(host="127.0.0.1", port=port, password=password, socket_timeout=1, socket_connect_timeout=1)
    try:
        return bool(client.ping())
    except (redis.RedisError, OSError):
        return False
    finally:
        client.close()


class TcpRedis:
    """A standalone redis-server on 127.0.0.1 with a password, as a team would run one; it can be
    stopped and started again on the same port and data folder (for fault tests)."""

    def __init__(self, folder: Path):
        from memory_pipeline.resources.embedded_redis import redis_server_binary

        self.binary = redis_server_binary()
        self.folder, self.port, self.password = folder, free_port(), secrets.token_hex(12)
        self.process: subprocess.Popen | None = None
        folder.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"redis://:{self.password}@127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 30.0) -> RedisServer:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--requirepass", self.password,
             "--dir", str(self.folder), "--appendonly", "yes", "--save", "", "--daemonize", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + timeout
        while not _ping(self.port, self.password):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"redis-server did not start on port {self.port}")
            time.sleep(0.05)
        return RedisServer(self.url, self.port, self.password, self.process.pid)

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(sig)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=15)


@pytest.fixture
def tcp_redis(tmp_path: Path) -> Iterator[TcpRedis]:
    """A started TcpRedis; stopped after the test."""
    server = TcpRedis(tmp_path / "redis-tcp")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def postgres() -> Iterator[Postgres]:
    with postgres_server() as server:
        yield server
