"""The hook service: `python -m memory_pipeline.services.hook_service`, started by the first hook call
that finds none (memory_pipeline/hook_entry.py), with that call's environment.

It imports the hook flows once and answers each hook call over `<workspace>/state/hook.sock` (a
user-only unix socket; the wire is in hook_entry.py) with exactly what `memory-pipeline hook`
would print, one call at a time, in the order they come (first the calls a hook answered from disk
while no service ran, hook_entry.spool); the memory tools' calls of the MCP door
(memory_pipeline/mcp_entry.py, op `mcp`) the same way (services/mcp_server.py). A caller has
CLIENT_DEADLINE seconds to send its request, and no request, however malformed, stops the service. It
refuses a call (or a `stop`) made with other settings (the caller then handles it itself), refuses to
serve from a `state/` others can write (hook_entry.socket_refusal), and stops after IDLE_TIMEOUT without
calls, when the workspace folder is gone, when the code changed (the next call starts a fresh one), or
on SIGTERM (after the call at hand).
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


def answer(request: bytes, key: bytes, settings: Settings, give_way: bool = False) -> tuple[bytes, bool, Later]:
    """(the reply, whether to stop serving, the work to do once the reply is sent). `give_way`: this
    service has answered no hook call yet (the MCP door started it, with its client's environment):
    it stops after refusing a hook call made with other settings, so the hooks' next call starts one
    with theirs (the door's calls then run in a child, never the hooks')."""
    op, agent, at, sent_key, raw = (request.split(b"\0", 4) + [b""] * 5)[:5]
    if op == b"ping":  # answered after every earlier call's work: a barrier; stdout is the pid
        pid = str(os.getpid()).encode()
        return f"ok {len(pid)}\n".encode() + pid, False, None
    if not (op in (b"stop", b"mcp") or op == b"hook" and agent == b"claude-code"):
        return b"no unknown request\n", False, None
    if sent_key != key:  # a stop too: only a caller with these settings (stop_service falls back to a signal)
        return b"no called with other settings\n", give_way and op == b"hook", None
    if op == b"stop":
        return b"ok 0\nstopping", True, None
    if op == b"mcp":  # a memory tool's call from the MCP door (memory_pipeline/mcp_entry.py)
        from memory_pipeline.services.mcp_server import answer_call

        out = answer_call(raw, settings).encode("utf-8", "surrogateescape")
        return f"ok {len(out)}\n".encode() + out, False, None
    now = call_time(at)
    if event_name(raw) in ANSWER_FIRST:
        return b"ok 0\n", False, lambda: hook_reply(raw, settings, now)
    stdout, stderr = hook_reply(raw, settings, now)
    out, err = (text.encode("utf-8", "surrogateescape") for text in (stdout, stderr))
    return f"ok {len(out)}\n".encode() + out + err, False, lambda: remember_briefing(raw, stdout, key, settings)


def remember_briefing(raw: bytes, stdout: str, key: bytes, settings: Settings) -> None:
    """A SessionStart's answer (not after a compaction), kept for the folder: what the next first
    hook call there prints while no service runs (hook_entry.answer_from_disk)."""
    fields = hook_entry.hook_fields(raw)
    if fields is None or fields[0] != "SessionStart" or fields[1] == "compact" or not fields[2] or not stdout:
        return
    from memory_pipeline.resources.workspace import Workspace

    root = os.path.realpath(settings.workspace)
    try:
        Workspace(settings.workspace).write_json(Path(hook_entry.briefing_path(root, fields[2])),
                                                 {"key": hook_entry.digest(key), "stdout": stdout})
    except OSError as exc:  # a briefing not kept only costs the next first call its wait
        print(f"hook service: briefing not kept: {exc}", file=sys.stderr, flush=True)


def drain_spool(root: Path, key: bytes, settings: Settings) -> int:
    """Do the work of the calls answered while no service ran (hook_entry.spool), oldest first;
    each file is removed before its work, so a call is never done twice. How many were done."""
    folder = root.joinpath(*hook_entry.SPOOL)
    done = 0
    for path in sorted(folder.glob("*.req")) if folder.is_dir() else []:
        try:
            request = path.read_bytes()
            path.unlink()
        except OSError:
            continue
        reply, _, later = answered(request, key, settings)  # a spooled call was made by a hook: no giving way
        if reply.startswith(b"no "):
            print(f"hook service: spooled call {path.name} refused: {reply[3:].decode(errors='replace').strip()}",
                  file=sys.stderr, flush=True)
        if later is not None:
            try:
                later()
            except Exception as exc:  # noqa: BLE001 — one spooled call's failure never ends the service
                print(f"hook service: spooled call {path.name} failed: {type(exc).__name__}: {exc}",
                      file=sys.stderr, flush=True)
        done += 1
    return done


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


def serve_one(conn: socket.socket, key: bytes, settings: Settings, give_way: bool = False) -> tuple[bool, bool]:
    """Answer one connection, then do its deferred work; (whether the service should stop, whether
    it answered a hook call). No input stops the service: a request that cannot be answered gets a
    `no …` reply (the caller then handles the call itself), and a caller gets CLIENT_DEADLINE seconds
    to send its request."""
    later, request, reply = None, b"", b""
    with conn:
        try:
            received = read_request(conn, time.monotonic() + CLIENT_DEADLINE)
            if received is None:
                reply, stop = f"no request not received within {CLIENT_DEADLINE:g} s\n".encode(), False
            else:
                request = received
                reply, stop, later = answered(request, key, settings, give_way)
            conn.settimeout(CLIENT_DEADLINE)
            conn.sendall(reply)
        except OSError:
            return False, False
    if later is not None:
        try:
            later()  # the next call waits in the socket's backlog: calls keep their order
        except Exception as exc:  # noqa: BLE001 — the service outlives one call's failure; say what it was
            print(f"hook service: deferred work failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
    return stop, request.startswith(b"hook\0") and reply.startswith(b"ok")


def answered(request: bytes, key: bytes, settings: Settings, give_way: bool = False) -> tuple[bytes, bool, Later]:
    """`answer`, with anything it raises turned into a `no …` reply instead of the service's end."""
    try:
        return answer(request, key, settings, give_way)
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


def serve(path: str, key: bytes, root: Path, settings: Settings, idle_timeout: float = IDLE_TIMEOUT) -> int:
    """Serve until idle, stopped, the workspace gone or the code changed (the caller holds the lock)."""
    code, identity = code_signature(), folder_identity(root)
    server = listen(path)
    print(f"hook service {os.getpid()} listening on {path}", file=sys.stderr, flush=True)
    touched = checked = time.monotonic()
    terminated: list[int] = []
    if threading.current_thread() is threading.main_thread():  # SIGTERM (`stop` by another's settings):
        signal.signal(signal.SIGTERM, lambda number, _: terminated.append(number))  # after the call at hand
    try:
        hooks_answered = drain_spool(root, key, settings) > 0  # calls answered before it was up come first
        while (not terminated and time.monotonic() - touched < idle_timeout
               and folder_identity(root) == identity):
            try:
                conn, _ = server.accept()
            except TimeoutError:  # idle: the time to see whether the code changed (never on a call's path)
                if drain_spool(root, key, settings):  # spooled while this service was coming up
                    touched, hooks_answered = time.monotonic(), True
                if time.monotonic() - checked > CODE_CHECK_EVERY:
                    checked = time.monotonic()
                    if code_signature() != code:
                        print("hook service: the code changed; stopping", file=sys.stderr, flush=True)
                        break
                continue
            touched = time.monotonic()
            stop, hook = serve_one(conn, key, settings, give_way=not hooks_answered)
            hooks_answered = hooks_answered or hook
            if stop:  # asked to stop, or giving way to the hooks' settings
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
