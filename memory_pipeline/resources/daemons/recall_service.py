"""The long-lived recall service: JSON lines over a user-only unix socket in the workspace's state/.

One request per connection: the client writes a JSON object and a newline, the server answers
one JSON line. The server stops itself after `idle_timeout` seconds without requests, and when
its workspace folder is removed (or replaced by another folder at the same path). Clients
start it on demand under a file lock, so two clients starting at once get one service; a
second server that cannot take the run lock exits at once.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import cast

from filelock import FileLock, Timeout

from memory_pipeline.errors import ServiceError
from memory_pipeline.resources.processes import (
    command_line,
    folder_identity,
    process_alive,
    read_pid,
    terminate,
    write_pid,
)
from memory_pipeline.resources.workspace import (
    STATE_NAMES,
    Workspace,
    atomic_write_text,
    ensure_socket_dir,
    unix_socket_path,
)

DEFAULT_IDLE_TIMEOUT = 30 * 60.0
MAX_REQUEST_BYTES = 1 << 20
SOCKET_NAME = "recall.sock"
Handler = Callable[[dict], dict]


def socket_path(workspace: Workspace, runtime_dir: Path) -> Path:
    """state/recall.sock, or a short per-workspace path under `runtime_dir` (the caller's
    XDG_RUNTIME_DIR) when that is over the unix limit."""
    return unix_socket_path(workspace.state, SOCKET_NAME, runtime_dir)


def pid_path(workspace: Workspace) -> Path:
    return workspace.state_path("recall_pid")


def listening_path(state: Path) -> Path:
    """The file naming the running service's socket: a writer in another process (another
    environment, another XDG_RUNTIME_DIR) finds the service through it."""
    return state / STATE_NAMES["recall_socket"]


def log_path(workspace: Workspace) -> Path:
    return workspace.state_path("recall_log")


# --- client ----------------------------------------------------------------------------


def request(path: Path, payload: dict, timeout: float = 30.0) -> dict:
    """Send one request; raises ServiceError when nothing answers."""
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8") + b"\n"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(str(path))
            conn.sendall(data)
            chunks = []
            while True:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
                if chunk.endswith(b"\n"):
                    break
    except OSError as exc:
        raise ServiceError(f"recall service at {path} did not answer: {exc}") from exc
    try:
        return json.loads(b"".join(chunks).decode("utf-8"))
    except ValueError as exc:
        raise ServiceError(f"recall service at {path} sent a broken answer") from exc


def ping(workspace: Workspace, runtime_dir: Path, timeout: float = 2.0) -> dict | None:
    path = socket_path(workspace, runtime_dir)
    if not path.exists():
        return None
    try:
        answer = request(path, {"op": "status"}, timeout)
    except ServiceError:
        return None
    return answer if answer.get("ok") else None


def ensure_service(workspace: Workspace, runtime_dir: Path, command: list[str], start_timeout: float = 90.0) -> dict:
    """The running service's status; starts it (detached) when absent. One starter at a time."""
    status = ping(workspace, runtime_dir)
    if status is not None:
        return status
    lock = FileLock(str(workspace.lock_path("recall-service-start")))
    try:
        lock.acquire(timeout=start_timeout)
    except Timeout as exc:
        raise ServiceError("another client has been starting the recall service for too long") from exc
    try:
        status = ping(workspace, runtime_dir)
        if status is not None:
            return status
        log = open(log_path(workspace), "ab")  # noqa: SIM115 - handed to the child
        try:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                       start_new_session=True, close_fds=True)
        finally:
            log.close()
        deadline = time.monotonic() + start_timeout
        while time.monotonic() < deadline:
            status = ping(workspace, runtime_dir, timeout=1.0)
            if status is not None:
                return status
            if process.poll() is not None:
                raise ServiceError(f"recall service exited with code {process.returncode}; see {log_path(workspace)}")
            time.sleep(0.05)
        raise ServiceError(f"recall service did not answer within {start_timeout:.0f}s; see {log_path(workspace)}")
    finally:
        lock.release()


# The service's module (`python -m …`), and where it was before services/ (a service still running
# from before an upgrade is still this workspace's, and is stopped as one).
SERVER_MODULES = ("memory_pipeline.services.recall_server", "memory_pipeline.flows.recall.server")


def service_pid(workspace: Workspace) -> int | None:
    """The pid of this workspace's live recall service (from its pid file), or None."""
    pid = read_pid(pid_path(workspace))
    if pid is None or not process_alive(pid):
        return None
    line = command_line(pid)
    return pid if any(name in line for name in SERVER_MODULES) and str(workspace.root) in line else None


def stop_service(workspace: Workspace, runtime_dir: Path, timeout: float = 10.0) -> int | None:
    """Ask the service to stop and wait until its process has exited (SIGTERM, then SIGKILL, if it
    does not); returns the pid it stopped, or None if none was running."""
    status = ping(workspace, runtime_dir)
    pid = service_pid(workspace) or (int(status["pid"]) if status and status.get("pid") else None)
    if status is not None:
        with contextlib.suppress(ServiceError):
            request(socket_path(workspace, runtime_dir), {"op": "stop"}, timeout)
    if pid is not None:
        terminate(pid, (None, signal.SIGTERM, signal.SIGKILL), grace=timeout)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and socket_path(workspace, runtime_dir).exists():
        time.sleep(0.05)
    return pid


# --- server ----------------------------------------------------------------------------


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    handler: Handler
    touched: float

    def close_down(self) -> None:
        """Unlink the socket first, so a client never connects to a server that is going away."""
        with contextlib.suppress(FileNotFoundError):
            Path(cast(str, self.server_address)).unlink()  # bound to a str path; typeshed allows bytes too
        self.shutdown()


class _Connection(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        server: _Server = self.server  # type: ignore[assignment]
        line = self.rfile.readline(MAX_REQUEST_BYTES + 1)
        payload: dict = {}
        try:
            payload = json.loads(line.decode("utf-8"))
            if not isinstance(payload, dict):
                raise ValueError("the request must be a JSON object")
        except ValueError as exc:
            answer = {"ok": False, "error": f"bad request: {exc}", "kind": "bad_input"}
        else:
            busy = payload.get("op") != "status"  # a status check does not keep an idle service alive
            if busy:
                server.touched = time.monotonic()
            answer = server.handler(payload)
            if busy:
                server.touched = time.monotonic()
        self.wfile.write(json.dumps(answer, ensure_ascii=False, default=str).encode("utf-8") + b"\n")
        if payload.get("op") == "stop":
            threading.Thread(target=server.close_down, daemon=True).start()


def serve(workspace: Workspace, runtime_dir: Path, handler: Handler, idle_timeout: float = DEFAULT_IDLE_TIMEOUT) -> int:
    """Run until stopped or idle; returns 0, or 3 when another server already runs.

    A server still closing down holds the run lock for a moment, hence the short wait for it.
    """
    run_lock = FileLock(str(workspace.lock_path("recall-service-run")))
    try:
        run_lock.acquire(timeout=10)
    except Timeout:
        return 3
    path = socket_path(workspace, runtime_dir)
    try:
        ensure_socket_dir(path)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # a socket left by a server that died
        old_umask = os.umask(0o177)
        try:
            server = _Server(str(path), _Connection)
        finally:
            os.umask(old_umask)
        os.chmod(path, 0o600)
        server.handler, server.touched = handler, time.monotonic()
        write_pid(pid_path(workspace), os.getpid())
        atomic_write_text(listening_path(workspace.state), str(path))
        identity = folder_identity(workspace.root)

        def watch_idle() -> None:
            while True:
                time.sleep(min(1.0, idle_timeout / 4))
                if time.monotonic() - server.touched > idle_timeout:
                    server.close_down()
                    return
                if folder_identity(workspace.root) != identity:
                    print("recall service: the workspace folder is gone; stopping", file=sys.stderr, flush=True)
                    server.close_down()
                    return

        threading.Thread(target=watch_idle, daemon=True).start()
        print(f"recall service {os.getpid()} listening on {path} (idle timeout {idle_timeout:.0f}s)",
              file=sys.stderr, flush=True)
        server.serve_forever(poll_interval=0.2)
        server.server_close()
        return 0
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        with contextlib.suppress(FileNotFoundError):
            pid_path(workspace).unlink()
        with contextlib.suppress(FileNotFoundError):
            listening_path(workspace.state).unlink()
        run_lock.release()
