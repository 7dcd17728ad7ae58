"""The hook service: `python -m memory_pipeline.flows.hooks.service`, started by the first hook call
that finds none (memory_pipeline/hook_entry.py), with that call's environment.

It imports the hook flows once and answers each hook call over `<workspace>/state/hook.sock` (a
user-only unix socket; the wire is in hook_entry.py) with exactly what `memory-pipeline hook`
would print, one call at a time, in the order they come; a caller has CLIENT_DEADLINE seconds to
send its request, and no request, however malformed, stops the service. It refuses a call (or a
`stop`) made with other settings (the caller then handles it itself), refuses to serve from a
`state/` others can write (hook_entry.socket_refusal), and stops after IDLE_TIMEOUT without calls,
when the workspace folder is gone, when the code changed (the next call starts a fresh one), or on
SIGTERM (after the call at hand).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from memory_pipeline import hook_entry
from memory_pipeline.flows.hooks.reply import hook_reply
from memory_pipeline.resources.processes import folder_identity

if TYPE_CHECKING:
    from memory_pipeline.config import Settings

IDLE_TIMEOUT = 30 * 60.0
# Events whose output the client does not use (we never block a compaction or a stop): the client
# is answered at once and the work (parse, redact, snapshot, emit) runs right after, before the
# next call is taken. Their notes go to state/hooks/telemetry.jsonl, as every decision does.
ANSWER_FIRST = ("PreCompact", "SessionEnd", "Stop")
TICK = 1.0
CLIENT_DEADLINE = 2.0  # to send a whole request (callers send it at once) and to take the reply
CODE_CHECK_EVERY = 5.0
LIMIT = hook_entry.MAX_STDIN_BYTES + 4096
CODE_DIRS = (Path(hook_entry.PACKAGE_DIR), Path(hook_entry.PACKAGE_DIR).parent / "prompts")


def code_signature() -> tuple[int, float]:
    """How many source files there are and the newest one's time: a change means new code."""
    times = [entry.stat().st_mtime for folder in CODE_DIRS if folder.is_dir()
             for entry in folder.rglob("*") if entry.suffix in (".py", ".md")]
    return len(times), max(times, default=0.0)


def event_name(raw: bytes) -> str | None:
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError):  # hook_reply says what is wrong with it
        return None
    return document.get("hook_event_name") if isinstance(document, dict) else None


Later = Callable[[], object] | None


def answer(request: bytes, key: bytes, settings: "Settings") -> tuple[bytes, bool, Later]:
    """(the reply, whether to stop serving, the work to do once the reply is sent)."""
    op, agent, at, sent_key, raw = (request.split(b"\0", 4) + [b""] * 5)[:5]
    if op == b"ping":  # answered after every earlier call's work: a barrier; stdout is the pid
        pid = str(os.getpid()).encode()
        return f"ok {len(pid)}\n".encode() + pid, False, None
    if op not in (b"stop", b"hook") or (op == b"hook" and agent != b"claude-code"):
        return b"no unknown request\n", False, None
    if sent_key != key:  # a stop too: only a caller with these settings (stop_service falls back to a signal)
        return b"no called with other settings\n", False, None
    if op == b"stop":
        return b"ok 0\nstopping", True, None
    now = call_time(at)
    if event_name(raw) in ANSWER_FIRST:
        return b"ok 0\n", False, lambda: hook_reply(raw, settings, now)
    out, err = (text.encode("utf-8", "surrogateescape") for text in hook_reply(raw, settings, now))
    return f"ok {len(out)}\n".encode() + out + err, False, None


def call_time(at: bytes) -> datetime | None:
    """When the caller made the call (seconds since the epoch), or None for a time that is none
    (`nan`, `1e300`, a year past 9999, not a number): the call is then dated now."""
    try:
        return datetime.fromtimestamp(float(at)).astimezone()
    except (ValueError, OverflowError, OSError):
        return None


def read_request(conn: socket.socket, deadline: float) -> bytes | None:
    """The whole request, or None when it did not all come before `deadline` (monotonic): a caller
    writes it at once, so a slow one is cut off rather than holding up the calls behind it."""
    chunks, size = [], 0
    while size <= LIMIT:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        conn.settimeout(left)
        try:
            chunk = conn.recv(1 << 16)
        except TimeoutError:
            return None
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def serve_one(conn: socket.socket, key: bytes, settings: "Settings") -> bool:
    """Answer one connection, then do its deferred work; True when the service should stop. No input
    stops the service: a request that cannot be answered gets a `no …` reply (the caller then
    handles the call itself), and a caller gets CLIENT_DEADLINE seconds to send its request."""
    later = None
    with conn:
        try:
            request = read_request(conn, time.monotonic() + CLIENT_DEADLINE)
            if request is None:
                reply, stop = f"no request not received within {CLIENT_DEADLINE:g} s\n".encode(), False
            else:
                reply, stop, later = answered(request, key, settings)
            conn.settimeout(CLIENT_DEADLINE)
            conn.sendall(reply)
        except OSError:
            return False
    if later is not None:
        try:
            later()  # the next call waits in the socket's backlog: calls keep their order
        except Exception as exc:  # noqa: BLE001 — the service outlives one call's failure; say what it was
            print(f"hook service: deferred work failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
    return stop


def answered(request: bytes, key: bytes, settings: "Settings") -> tuple[bytes, bool, Later]:
    """`answer`, with anything it raises turned into a `no …` reply instead of the service's end."""
    try:
        return answer(request, key, settings)
    except Exception as exc:  # noqa: BLE001
        why = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
        print(f"hook service: could not answer a call: {why}", file=sys.stderr, flush=True)
        return f"no internal error: {why}\n".encode("utf-8", "replace"), False, None


def run_lock(path: str):
    """An exclusive lock held while starting and serving (`hook.sock.lock`): a second service exits
    at once, and a caller that finds it held waits for the socket (hook_entry.service_starting)."""
    handle = open(path + ".lock", "a")  # noqa: SIM115 — held for the life of the service
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle


def listen(path: str) -> socket.socket:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # left by a service that died
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        server.bind(path)
    finally:
        os.umask(old)
    server.listen(16)
    server.settimeout(TICK)
    return server


def serve(path: str, key: bytes, root: Path, settings: "Settings", idle_timeout: float = IDLE_TIMEOUT) -> int:
    """Serve until idle, stopped, the workspace gone or the code changed (the caller holds the lock)."""
    code, identity = code_signature(), folder_identity(root)
    server = listen(path)
    print(f"hook service {os.getpid()} listening on {path}", file=sys.stderr, flush=True)
    touched = checked = time.monotonic()
    terminated: list[int] = []
    if threading.current_thread() is threading.main_thread():  # SIGTERM (`stop` by another's settings):
        signal.signal(signal.SIGTERM, lambda number, _: terminated.append(number))  # after the call at hand
    try:
        while (not terminated and time.monotonic() - touched < idle_timeout
               and folder_identity(root) == identity):
            try:
                conn, _ = server.accept()
            except TimeoutError:  # idle: the time to see whether the code changed (never on a call's path)
                if time.monotonic() - checked > CODE_CHECK_EVERY:
                    checked = time.monotonic()
                    if code_signature() != code:
                        print("hook service: the code changed; stopping", file=sys.stderr, flush=True)
                        break
                continue
            touched = time.monotonic()
            if serve_one(conn, key, settings):
                break
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # first, so no caller connects to a service going away
        server.close()
    return 0


def main() -> int:
    from memory_pipeline.config import child_environment

    environ = child_environment()  # what the first hook call had: the key it answers for
    root = hook_entry.workspace_root(environ)
    path = hook_entry.socket_path(root)
    if path is None or not os.path.isdir(os.path.dirname(path)):
        return 1
    if refused := hook_entry.socket_refusal(path):  # another user could answer in our place there
        print(f"hook service: not serving: {refused}", file=sys.stderr, flush=True)
        return 1
    lock = run_lock(path)  # taken before the imports: callers see a service starting and wait for it
    if lock is None:
        return 3
    with lock:
        from memory_pipeline.config import Settings, configure_process
        from memory_pipeline.flows.hooks import claude_code, context, memory  # noqa: F401 — imported once, here

        configure_process()
        # built once: the service answers only calls made with these settings (the key says so)
        return serve(path, hook_entry.service_key(environ), Path(root), Settings.from_env())


if __name__ == "__main__":
    sys.exit(main())
