"""The workspace's Dagster daemon (`dagster-daemon run`): it evaluates the sensors (the inbox, the
threshold, review, automation) and the schedules, and launches their runs. One per workspace, in
its own process group (its code server and the run workers it launches are in the group), its pid
in state/daemon.pid, its output in state/daemon.log.

Started by `service start` (in the background), by the user's service manager (`service daemon`,
in the foreground: see resources/daemons/user_service.py), or by the first hook of a session
(hook_entry.start_daemon_detached). `service stop` stops it and leaves state/daemon-stopped, so
hooks leave it stopped until `service start`.
"""

from __future__ import annotations

import os
import signal
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
from memory_pipeline.resources.workspace import Workspace, atomic_write_text

START_WAIT = 60.0  # seconds `start_daemon` waits for the daemon's first line (it loads the definitions first)
READY_LINE = "Instance is configured with the following daemons"


def daemon_executable() -> Path:
    return Path(sys.executable).parent / "dagster-daemon"


def daemon_command() -> list[str]:
    return [str(daemon_executable()), "run", "-m", DEFINITIONS_MODULE]


def daemon_environment(workspace: Workspace, dagster_home: Path) -> dict[str, str]:
    """This process's environment pointed at the workspace; the package importable from the daemon's
    own working directory (the workspace, not the project the user stands in)."""
    package_root = str(Path(memory_pipeline.__file__).resolve().parents[1])
    env = child_environment(MEMORY_WORKSPACE=str(workspace.root), DAGSTER_HOME=str(dagster_home))
    paths = [package_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != package_root]
    return {**PROCESS_DEFAULTS, **env, "PYTHONPATH": os.pathsep.join(paths)}


def daemon_pid(workspace: Workspace) -> int | None:
    """The live dagster-daemon of this workspace (its command line and MEMORY_WORKSPACE checked, so a
    reused pid is never taken for it), or None."""
    pid = read_pid(workspace.state_path("daemon_pid"))
    if pid is None or not process_alive(pid):
        return None
    if not any("dagster-daemon" in part for part in command_line(pid)[:3]):
        return None
    return pid if environment_has(pid, "MEMORY_WORKSPACE", str(workspace.root)) else None


def stopped_by_user(workspace: Workspace) -> bool:
    return workspace.state_path("daemon_stopped").exists()


def start_daemon(workspace: Workspace, dagster_home: Path, wait: float = START_WAIT) -> tuple[int, bool]:
    """Start the daemon in the background unless one runs: (pid, started now). Clears the
    "stopped by the user" mark. Raises ServiceError when it exits at once (its log says why)."""
    workspace.state_path("daemon_stopped").unlink(missing_ok=True)
    with workspace.locked("dagster-daemon", timeout=60):
        running = daemon_pid(workspace)
        if running is not None:
            return running, False
        log_path = workspace.state_path("daemon_log")
        offset = log_path.stat().st_size if log_path.exists() else 0
        with open(log_path, "ab") as log:
            process = subprocess.Popen(daemon_command(), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
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
    return process.pid, True


def run_daemon_in_foreground(workspace: Workspace, dagster_home: Path) -> None:
    """Become the daemon (for a service manager, which supervises this pid): the pid file names this
    process, which then executes dagster-daemon in place."""
    workspace.state_path("daemon_stopped").unlink(missing_ok=True)
    with workspace.locked("dagster-daemon", timeout=60):
        running = daemon_pid(workspace)
        if running is not None:
            raise ServiceError(f"a Dagster daemon already runs for {workspace.root} (pid {running}); "
                               "`memory-pipeline service stop` first")
        write_pid(workspace.state_path("daemon_pid"), os.getpid())
    os.chdir(workspace.root)
    os.execve(daemon_command()[0], daemon_command(), daemon_environment(workspace, dagster_home))


def stop_daemon(workspace: Workspace, timeout: float = 20.0, remember: bool = True) -> int | None:
    """Stop the daemon and everything in its group (run workers); the pid stopped, or None. With
    `remember`, hooks do not start it again until `service start`."""
    if remember:
        atomic_write_text(workspace.state_path("daemon_stopped"), "stopped by `memory-pipeline service stop`\n")
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
