"""Processes a workspace starts: is one alive, what it is, how long it has run, how to end it.

Linux facts come from /proc (pid reuse is guarded by checking a process's command line and
working directory before anything is sent to it); elsewhere `kill(pid, 0)` is the fallback.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


def process_alive(pid: int) -> bool:
    """True if `pid` runs and is not a zombie (reaps it if it is our own dead child)."""
    try:
        reaped, _ = os.waitpid(pid, os.WNOHANG)
        if reaped == pid:
            return False
    except ChildProcessError:
        pass
    if (PROC / "self").exists():
        try:
            return (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except (FileNotFoundError, ProcessLookupError, IndexError):
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def terminate(pid: int, signals: tuple[signal.Signals | None, ...], grace: float, group: bool = False) -> bool:
    """Wait `grace` seconds per step for `pid` to exit, sending each signal in turn (None: just wait).
    With `group`, signals go to the process group `pid` leads."""
    for sig in signals:
        if sig is not None:
            try:
                os.killpg(pid, sig) if group else os.kill(pid, sig)
            except ProcessLookupError:
                return True
            except PermissionError:
                return False
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if not process_alive(pid):
                return True
            time.sleep(0.02)
    return not process_alive(pid)


def command_line(pid: int) -> list[str]:
    """The process's arguments, or [] when it is gone or unreadable."""
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode("utf-8", errors="replace") for part in raw.split(b"\0") if part]


def working_dir(pid: int) -> str | None:
    """The process's working directory as /proc shows it (" (deleted)" when it was removed)."""
    try:
        return os.readlink(PROC / str(pid) / "cwd")
    except OSError:
        return None


def own_pids() -> list[int]:
    """Pids of this user's processes (all visible ones where /proc is not there: none)."""
    if not PROC.is_dir():
        return []
    found = []
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == os.getuid():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def process_group(pid: int) -> int | None:
    try:
        return int((PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[2])
    except (OSError, IndexError, ValueError):
        return None


def group_members(pgid: int) -> list[int]:
    """This user's live processes in process group `pgid`."""
    return [pid for pid in own_pids() if process_group(pid) == pgid and process_alive(pid)]


def stop_group(pgid: int, grace: float = 15.0) -> bool:
    """End every process of group `pgid`, not just its leader: SIGTERM, then SIGKILL for what is
    still there after `grace` seconds. Children of the leader (a run worker of `dagster dev`) can
    outlive it. True when the group is empty."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return True
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if not process_alive(pgid) and not group_members(pgid):
                return True
            time.sleep(0.1)
    return not group_members(pgid)


def environment_has(pid: int, name: str, value: str) -> bool:
    """True if the process was started with `name=value` in its environment."""
    try:
        raw = (PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return False
    return f"{name}={value}".encode() in raw.split(b"\0")


@dataclass(frozen=True)
class ProcessInfo:
    pid: int
    uptime_s: float | None
    rss_bytes: int | None


def start_ticks(pid: int) -> int | None:
    """When the process started, in clock ticks after boot (/proc/<pid>/stat), or None where unknown. A pid is
    used again by a later process; a pid and its start name one process."""
    try:
        return int((PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def process_info(pid: int) -> ProcessInfo:
    """Uptime (from the start time in /proc/<pid>/stat) and resident memory; None where unknown."""
    uptime = rss = None
    try:
        started = start_ticks(pid)
        if started is not None:
            booted = float((PROC / "uptime").read_text().split()[0])
            uptime = round(booted - started / os.sysconf("SC_CLK_TCK"), 1)
        for line in (PROC / str(pid) / "status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    return ProcessInfo(pid, uptime, rss)


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time a process has used so far (/proc/<pid>/stat), or None."""
    try:
        fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def children_of(pid: int) -> list[int]:
    """The pids whose parent is `pid`."""
    found = []
    for entry in PROC.iterdir() if PROC.is_dir() else []:
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def write_pid(path: Path, pid: int) -> None:
    """Atomic and user-only: a reader sees the old pid or the new one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(f"{pid}\n")
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def folder_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of a folder, or None when it is gone: a folder removed and made again at the
    same path is another folder."""
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_dev, info.st_ino)
