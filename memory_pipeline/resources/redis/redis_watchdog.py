"""The embedded redis-server's watchdog: `python -m memory_pipeline.resources.redis.redis_watchdog`.

redis-server has no idle shutdown, and a server outlives the workspace it serves. The starter of
the embedded server launches this small process beside it (standard library and filelock only).
It watches one server by pid and:
- stops it after `--idle-timeout` seconds in which no client was connected and no command ran
  (polling `INFO`; its own connection and its own `INFO` commands do not count), with SHUTDOWN,
  which fsyncs the AOF first; the next command of the pipeline starts a server again;
- stops it when the workspace's redis folder is removed (or replaced by another folder);
- exits when the server is gone, and on SIGTERM.
The shutdown happens under the server's start lock and after a last look, so a client starting
or finding the server at that moment either keeps it alive or starts a new one.
"""

from __future__ import annotations

import argparse
import signal
import socket
import sys
import time
from pathlib import Path

from filelock import FileLock, Timeout

from memory_pipeline.resources.processes import command_line, folder_identity, process_alive, read_pid, terminate

TICK_SECONDS = 0.5


class RedisProbe:
    """One persistent connection speaking just enough RESP for INFO and SHUTDOWN."""

    def __init__(self, socket_path: Path) -> None:
        self.socket_path = socket_path
        self.conn: socket.socket | None = None
        self.last_total: int | None = None

    def _command(self, *words: str) -> bytes:
        if self.conn is None:
            self.conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.conn.settimeout(5.0)
            self.conn.connect(str(self.socket_path))
            self.last_total = None
        parts = [f"*{len(words)}\r\n".encode()] + [f"${len(w)}\r\n{w}\r\n".encode() for w in words]
        self.conn.sendall(b"".join(parts))
        data = b""
        while b"\r\n" not in data:
            chunk = self.conn.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            data += chunk
        head, rest = data.split(b"\r\n", 1)
        if not head.startswith(b"$"):
            return head
        size = int(head[1:])
        while len(rest) < size + 2:
            chunk = self.conn.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            rest += chunk
        return rest[:size]

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.conn = None

    def idle(self) -> bool:
        """True when only this probe is connected and nothing but its own INFO ran since the last look."""
        try:
            info = self._command("INFO").decode("utf-8", errors="replace")
        except (OSError, ValueError):
            self.close()
            return False
        fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
        clients, total = int(fields.get("connected_clients", 2)), int(fields.get("total_commands_processed", 0))
        previous, self.last_total = self.last_total, total
        return clients <= 1 and previous is not None and total - previous <= 1

    def shutdown(self) -> None:
        try:
            self._command("SHUTDOWN")
        except (OSError, ValueError):
            pass  # the server closes the connection as it exits
        self.close()


def is_redis(pid: int) -> bool:
    line = command_line(pid)
    return bool(line) and "redis-server" in line[0]


def stop_if_still_idle(folder: Path, pid: int, probe: RedisProbe) -> bool:
    """Under the start lock, one more look; SHUTDOWN and wait. False when someone is busy with it."""
    lock = FileLock(str(folder / "start.lock"))
    try:
        lock.acquire(timeout=0)
    except (Timeout, OSError):
        return False
    try:
        if not probe.idle():
            return False
        probe.shutdown()
        terminate(pid, (None, signal.SIGTERM, signal.SIGKILL), grace=10.0)
        if read_pid(folder / "redis.pid") == pid:
            (folder / "redis.pid").unlink(missing_ok=True)
        return True
    finally:
        lock.release()


def watch(folder: Path, socket_path: Path, pid: int, idle_timeout: float, identity: tuple[int, int] | None) -> str:
    """Run until the server is gone; returns why this watchdog stopped. `identity` is the folder's
    (device, inode) when the server started (the folder may be gone before this process looks)."""
    probe = RedisProbe(socket_path)
    poll = min(30.0, max(TICK_SECONDS, idle_timeout / 10)) if idle_timeout > 0 else None
    idle_since = next_poll = time.monotonic()
    while True:
        if not process_alive(pid) or not is_redis(pid):
            return "the server exited"
        if folder_identity(folder) != identity:
            terminate(pid, (signal.SIGTERM, signal.SIGKILL), grace=5.0)
            return "the workspace folder is gone; stopped the server"
        now = time.monotonic()
        if poll is not None and now >= next_poll:
            next_poll = now + poll
            if not probe.idle():
                idle_since = now
            elif now - idle_since >= idle_timeout and stop_if_still_idle(folder, pid, probe):
                return f"idle for {idle_timeout:.0f}s; shut the server down"
        time.sleep(TICK_SECONDS)


def _folder_id(text: str) -> tuple[int, int]:
    """--folder-id's DEVICE:INODE."""
    device, inode = text.split(":")
    return int(device), int(inode)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="redis-watchdog")
    parser.add_argument("--dir", required=True, type=Path, help="the server's state/redis folder")
    parser.add_argument("--socket", required=True, type=Path)
    parser.add_argument("--pid", required=True, type=int)
    parser.add_argument("--idle-timeout", type=float, default=1800.0, help="seconds; 0 never stops an idle server")
    parser.add_argument("--folder-id", help="DEVICE:INODE of --dir when the server started")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    identity = _folder_id(args.folder_id) if args.folder_id else folder_identity(args.dir)
    why = watch(args.dir, args.socket, args.pid, args.idle_timeout, identity)
    print(f"redis watchdog {args.pid}: {why}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
