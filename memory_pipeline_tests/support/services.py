"""Real servers for the deployment tests: PostgreSQL (Debian's `postgresql` package, `initdb` +
`pg_ctl` in a temporary folder) and a standalone redis-server on TCP with a password.

Each is started for the test that asks for it and stopped after; a test skips with the reason
when a server cannot run here. PostgreSQL refuses root: as root it runs as the `postgres` user, or,
where that user cannot reach the binaries (a machine whose `/` is root-only), as root mapped to an
unprivileged id inside a user namespace (`unshare --user --map-user`).
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


def _as_postgres_user(argv: list[str], user: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([*user, *argv], capture_output=True, text=True, timeout=120, check=False, **kwargs)


def _runs(prefix: list[str]) -> bool:
    try:
        return subprocess.run([*prefix, "/bin/true"], capture_output=True, timeout=30, check=False).returncode == 0
    except OSError:
        return False


def _postgres_user() -> tuple[list[str], str | None]:
    """The command prefix that runs a program as a non-root id, and the user to own the files:
    nothing when not root; `runuser -u postgres` when that user can run programs here; else a
    user namespace mapping root to an unprivileged id (the files stay root's); else skip."""
    if os.geteuid() != 0:
        return [], None
    try:
        pwd.getpwnam("postgres")
        if shutil.which("runuser") and _runs(["runuser", "-u", "postgres", "--"]):
            return ["runuser", "-u", "postgres", "--"], "postgres"
    except KeyError:
        pass
    mapped = ["unshare", "--user", "--map-user=1000", "--map-group=1000"]
    if shutil.which("unshare") and _runs(mapped):
        return mapped, None
    pytest.skip(f"PostgreSQL refuses root, and no other user can run it here (runuser, unshare): {INSTALL_HINT}")


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
    user, owner = _postgres_user()
    root = Path(tempfile.mkdtemp(prefix="memory-pg-"))  # outside pytest's root-only tmp folders
    password, port = secrets.token_hex(12), free_port()
    (root / "pw").write_text(password + "\n", encoding="utf-8")
    if owner:
        shutil.chown(root, owner)
        shutil.chown(root / "pw", owner)
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
        from memory_pipeline.resources.redis.embedded_redis import redis_server_binary

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
