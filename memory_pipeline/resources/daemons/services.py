"""The background processes a workspace starts, in one place: list them, stop them all.

- redis-server: the embedded Redis (state/redis/redis.pid) and its watchdog (state/redis/watchdog.pid);
- recall service: state/recall-service.pid;
- hook service: state/hook.sock (it answers with its pid); one a hook started a moment ago, not
  answering yet, by its command line and working folder (the workspace);
- daemon: `dagster-daemon run`, the sensors and schedules (state/daemon.pid; it leads its own process
  group, with its code server and the run workers it launched);
- ui: the Dagster webserver started by `memory-pipeline ui` (state/ui.pid; it leads its own process group).
Each pid is checked against the process's command line (and working directory or environment)
before anything is sent to it, so a reused pid is never touched.
"""

from __future__ import annotations

import signal
from dataclasses import asdict, dataclass
from pathlib import Path

from memory_pipeline import hook_entry
from memory_pipeline.resources.daemons import recall_service
from memory_pipeline.resources.daemons.dagster_daemon import daemon_pid, stop_daemon
from memory_pipeline.resources.processes import (
    command_line,
    environment_has,
    group_members,
    own_pids,
    process_alive,
    process_info,
    read_pid,
    terminate,
    working_dir,
)
from memory_pipeline.resources.redis.embedded_redis import EmbeddedRedis
from memory_pipeline.resources.workspace import Workspace


@dataclass(frozen=True)
class ServiceProcess:
    name: str  # redis-server | redis-watchdog | recall-service | hook-service | daemon | ui
    pid: int
    uptime_s: float | None
    rss_bytes: int | None

    def as_dict(self) -> dict:
        return asdict(self)


def ui_pid(workspace: Workspace) -> int | None:
    """The live webserver that `memory-pipeline ui` started for this workspace, or None."""
    pid = read_pid(workspace.state_path("ui_pid"))
    if pid is None or not process_alive(pid):
        return None
    if not any("dagster" in part for part in command_line(pid)[:3]):
        return None
    return pid if environment_has(pid, "MEMORY_WORKSPACE", str(workspace.root)) else None


def hook_services_starting(workspace: Workspace) -> list[int]:
    """Hook services started in this workspace (`hook_entry.start_service`: run in its folder) that
    may not answer on state/hook.sock yet: a hook starts one and returns at once."""
    root = str(workspace.root)  # resolved, as /proc shows a working folder
    return [pid for pid in own_pids() if hook_entry.SERVICE_MODULE in " ".join(command_line(pid)[:3])
            and working_dir(pid) == root and process_alive(pid)]


def _described(name: str, pid: int, group: bool = False) -> ServiceProcess:
    info = process_info(pid)
    rss = info.rss_bytes
    if group:  # the daemon and the ui run their code server (and run workers) in their group
        sizes = [process_info(member).rss_bytes for member in group_members(pid)]
        rss = sum(size for size in sizes if size) or rss
    return ServiceProcess(name, pid, info.uptime_s, rss)


def workspace_processes(workspace: Workspace, runtime_dir: Path) -> list[ServiceProcess]:
    """Every live process this workspace started (`runtime_dir`: XDG_RUNTIME_DIR, where a long
    socket path is kept)."""
    found = []
    redis = EmbeddedRedis(workspace.state, runtime_dir)
    found += [_described("redis-server", pid) for pid in redis.server_pids()]
    watchdog = redis.watchdog_pid()
    if watchdog is not None:
        found.append(_described("redis-watchdog", watchdog))
    recall = recall_service.service_pid(workspace)
    if recall is not None:
        found.append(_described("recall-service", recall))
    hooks = hook_entry.service_pid(str(workspace.root), timeout=5.0)
    if hooks is not None:
        found.append(_described("hook-service", hooks))
    found += [_described("hook-service", pid) for pid in hook_services_starting(workspace) if pid != hooks]
    daemon = daemon_pid(workspace)
    if daemon is not None:
        found.append(_described("daemon", daemon, group=True))
    ui = ui_pid(workspace)
    if ui is not None:
        found.append(_described("ui", ui, group=True))
    return found


def stop_ui(workspace: Workspace, timeout: float) -> None:
    pid = ui_pid(workspace)
    if pid is not None:
        terminate(pid, (signal.SIGTERM, signal.SIGKILL), grace=timeout, group=True)
        for member in group_members(pid):
            terminate(member, (signal.SIGKILL,), grace=timeout)
    workspace.state_path("ui_pid").unlink(missing_ok=True)


def stop_workspace_services(workspace: Workspace, runtime_dir: Path, timeout: float = 10.0) -> list[ServiceProcess]:
    """Stop the daemon (first: it would launch runs), the ui, the recall service, then Redis
    (persisted by SHUTDOWN) and its watchdog; wait for each to exit. The daemon stays stopped (hooks
    do not start it) until `service start`. Returns what was running; a process that would not exit
    stays in `workspace_processes` (the caller reports it)."""
    running = workspace_processes(workspace, runtime_dir)
    stop_daemon(workspace, max(timeout, 20.0))
    if not running:
        return []
    stop_ui(workspace, timeout)
    recall_service.stop_service(workspace, runtime_dir, timeout)
    hook_entry.stop_service(str(workspace.root), timeout)
    for pid in hook_services_starting(workspace):  # one a hook had just started: it holds no call yet
        terminate(pid, (signal.SIGTERM, signal.SIGKILL), grace=timeout)
    EmbeddedRedis(workspace.state, runtime_dir).stop(timeout)
    return running
