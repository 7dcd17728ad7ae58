"""The workspace's always-on pipeline: the Dagster daemon (`dagster-daemon run`), which evaluates the
sensors (the inbox, the threshold, review, automation) and the schedules and launches their runs,
with its code server (the definitions loaded once, on a unix socket), both run by a watcher that
puts them to sleep while there is nothing to do (services/daemon_watch.py). One per workspace, in its
own process group (the watcher, its two children, the run workers the code server launches); the
watcher's pid in state/daemon.pid, the output of all of them in state/daemon.log.

Started by `service start` (in the background), by the user's service manager (`service daemon`,
in the foreground: see resources/daemons/user_service.py), or by the first hook of a session
(hook_entry.start_daemon_detached). `service stop` stops it and leaves state/daemon-stopped, so
hooks leave it stopped until `service start`.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import memory_pipeline
from memory_pipeline.config import PROCESS_DEFAULTS, child_environment
from memory_pipeline.errors import ServiceError
from memory_pipeline.pipeline import DEFINITIONS_MODULE
from memory_pipeline.resources.processes import (
    command_line,
    environment_has,
    group_members,
    process_alive,
    read_pid,
    terminate,
    write_pid,
)
from memory_pipeline.resources.workspace import Workspace, atomic_write_text, unix_socket_path

START_WAIT = 90.0  # seconds `start_daemon` waits for the daemon's first line (its code server loads the definitions first)
READY_LINE = "Instance is configured with the following daemons"
WATCH_MODULE = "memory_pipeline.services.daemon_watch"  # the process state/daemon.pid names
CODE_SOCKET = "code-server.sock"


def code_socket(workspace: Workspace, runtime_dir: Path) -> Path:
    """state/code-server.sock, or a short path under `runtime_dir` when that is over the unix limit."""
    return unix_socket_path(workspace.state, CODE_SOCKET, runtime_dir)


def watch_command(workspace: Workspace, runtime_dir: Path) -> list[str]:
    return [sys.executable, "-m", WATCH_MODULE, "--socket", str(code_socket(workspace, runtime_dir))]


def write_daemon_workspace(workspace: Workspace, code_server_socket: Path) -> Path:
    """The daemon's Dagster workspace file: the code server on its socket, under the name a `-m` target
    has (the sensors' and schedules' state in the instance is keyed by it)."""
    path = workspace.state_path("daemon_workspace")
    atomic_write_text(path, "load_from:\n  - grpc_server:\n"
                            f"      socket: {json.dumps(str(code_server_socket))}\n"  # a YAML double-quoted scalar
                            f"      location_name: {DEFINITIONS_MODULE}\n")
    return path


def daemon_environment(workspace: Workspace, dagster_home: Path) -> dict[str, str]:
    """This process's environment pointed at the workspace; the package importable from the daemon's
    own working directory (the workspace, not the project the user stands in)."""
    package_root = str(Path(memory_pipeline.__file__).resolve().parents[1])
    env = child_environment(MEMORY_WORKSPACE=str(workspace.root), DAGSTER_HOME=str(dagster_home))
    paths = [package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != package_root]
    return {**PROCESS_DEFAULTS, **env, "PYTHONPATH": os.pathsep.join(paths)}


def runs_daemon(pid: int) -> bool:
    """The pid runs the workspace's watcher (services/daemon_watch.py)."""
    return WATCH_MODULE in command_line(pid)[:3]


def daemon_pid(workspace: Workspace) -> int | None:
    """The live daemon (its watcher) of this workspace (its command line and MEMORY_WORKSPACE checked, so a
    reused pid is never taken for it), or None."""
    pid = read_pid(workspace.state_path("daemon_pid"))
    if pid is None or not process_alive(pid) or not runs_daemon(pid):
        return None
    return pid if environment_has(pid, "MEMORY_WORKSPACE", str(workspace.root)) else None


def stopped_by_user(workspace: Workspace) -> bool:
    return workspace.state_path("daemon_stopped").exists()


def start_daemon(workspace: Workspace, dagster_home: Path, runtime_dir: Path,
                 wait: float = START_WAIT, unless_stopped: bool = False) -> tuple[int, bool]:
    """Start the daemon in the background unless one runs: (pid, started now). Clears the
    "stopped by the user" mark and the hooks' last try. Raises ServiceError when it exits at once
    (its log says why). `unless_stopped` (a hook's start): a stop that came while this one was
    starting wins, the mark stays and nothing starts (ServiceError); checked under the lock
    `stop_daemon` reads the pid under, so one of the two always sees the other."""
    if not unless_stopped:
        workspace.state_path("daemon_stopped").unlink(missing_ok=True)
    with workspace.locked("dagster-daemon", timeout=60):
        if unless_stopped and stopped_by_user(workspace):
            raise ServiceError("not started: `memory-pipeline service stop` came while a hook was starting it")
        running = daemon_pid(workspace)
        if running is not None:
            return running, False
        log_path = workspace.state_path("daemon_log")
        offset = log_path.stat().st_size if log_path.exists() else 0
        with open(log_path, "ab") as log:
            process = subprocess.Popen(watch_command(workspace, runtime_dir),
                                       stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                       env=daemon_environment(workspace, dagster_home), cwd=workspace.root,
                                       start_new_session=True, close_fds=True)
        write_pid(workspace.state_path("daemon_pid"), process.pid)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and process.poll() is None:
        if READY_LINE in _read_from(log_path, offset):
            break
        time.sleep(0.2)
    if process.poll() is not None:
        workspace.state_path("daemon_pid").unlink(missing_ok=True)
        raise ServiceError(f"the Dagster daemon exited at once (status {process.returncode}); see {log_path}")
    workspace.state_path("daemon_tried").unlink(missing_ok=True)  # it runs: a hook may start it again once it dies
    return process.pid, True


def run_daemon_in_foreground(workspace: Workspace, dagster_home: Path, runtime_dir: Path) -> None:
    """Become the daemon (for a service manager, which supervises this pid): the pid file names this
    process, which becomes the watcher in place."""
    workspace.state_path("daemon_stopped").unlink(missing_ok=True)
    with workspace.locked("dagster-daemon", timeout=60):
        running = daemon_pid(workspace)
        if running is not None:
            raise ServiceError(f"a Dagster daemon already runs for {workspace.root} (pid {running}); "
                               "`memory-pipeline service stop` first")
        write_pid(workspace.state_path("daemon_pid"), os.getpid())
    os.chdir(workspace.root)
    env = daemon_environment(workspace, dagster_home)
    os.execve(sys.executable, watch_command(workspace, runtime_dir), env)


def answers(path: Path) -> bool:
    """Something accepts connections on the unix socket `path` (the code server binds it once the
    definitions are loaded)."""
    if not path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def stop_daemon(workspace: Workspace, timeout: float = 20.0, remember: bool = True) -> int | None:
    """Stop the daemon and everything in its group (run workers); the pid stopped, or None. With
    `remember`, hooks do not start it again until `service start`."""
    if remember:
        atomic_write_text(workspace.state_path("daemon_stopped"), "stopped by `memory-pipeline service stop`\n")
    with workspace.locked("dagster-daemon", timeout=60):  # after a hook's start that is spawning one, not before
        pid = daemon_pid(workspace)
    if pid is not None:
        members = group_members(pid)
        terminate(pid, (signal.SIGTERM, signal.SIGKILL), grace=timeout, group=True)
        for member in members:
            terminate(member, (signal.SIGKILL,), grace=timeout)
    workspace.state_path("daemon_pid").unlink(missing_ok=True)
    return pid


def _read_from(path: Path, offset: int) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            return handle.read(65536).decode("utf-8", "replace")
    except OSError:
        return ""

