"""No test leaves a process behind: find the services tests started under pytest's temporary
folders (a redis-server, its watchdog, a recall service, a `dagster dev`), and stop them."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from pathlib import Path

from memory_pipeline.resources.processes import command_line, own_pids, process_alive, terminate, working_dir

SERVICE_MARKERS = {
    "redis-server": "redis-server",
    "redis-watchdog": "memory_pipeline.resources.redis.redis_watchdog",
    "recall-service": "memory_pipeline.services.recall_server",
    "hook-service": "memory_pipeline.services.hook_service",
    "daemon-watcher": "memory_pipeline.services.daemon_watch",
    "dagster": "dagster",
}


@dataclass(frozen=True)
class Leftover:
    pid: int
    kind: str
    where: str

    def __str__(self) -> str:
        return f"{self.kind} pid {self.pid} ({self.where})"


def _kind(line: list[str]) -> str | None:
    head = " ".join(line[:3])
    for kind, marker in SERVICE_MARKERS.items():
        if marker in head:
            return kind
    return None


def _environment_paths(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return []
    return [part.split(b"=", 1)[1].decode(errors="replace") for part in raw.split(b"\0")
            if part.startswith(b"MEMORY_WORKSPACE=")]


def leftover_services(root: Path) -> list[Leftover]:
    """Live service processes of this user whose command line, working folder or workspace lies under `root`."""
    prefix = str(root.resolve()) + "/"  # pytest-1/ must not match pytest-12/
    found = []
    for pid in own_pids():
        line = command_line(pid)
        kind = _kind(line) if line else None
        if kind is None or not process_alive(pid):
            continue
        places = [*line, working_dir(pid) or "", *_environment_paths(pid)]
        where = next((p for p in places if prefix in p), None)
        if where is not None:
            found.append(Leftover(pid, kind, where))
    return found


def stop_leftovers(leftovers: list[Leftover]) -> None:
    for item in leftovers:
        terminate(item.pid, (signal.SIGTERM, signal.SIGKILL), grace=5.0)
