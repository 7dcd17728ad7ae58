"""The hook's fast door: stdlib only, so a hook call costs a Python start and a unix-socket round
trip, not the ~0.3 s of importing pydantic, the settings and the flows.

Claude Code runs `python -S …/memory_pipeline/hook_entry.py hook claude-code` (what `install-hooks`
writes; the older `memory-pipeline hook claude-code` reaches the same code through main.py). It
hands the hook's stdin to the workspace's hook service (services/hook_service.py, a long-lived
process with the flows already imported) and prints the service's answer. When none runs it starts
one (detached: it outlives this call) and does not wait for it when the answer is known without it
(an event that prints nothing, or a SessionStart the service answered before in the same folder:
its answer is on disk); the call is spooled for the service, which does its work in order. A first
SessionStart in a folder never briefed does not wait either: it prints nothing, the session is marked
as owed its briefing, and the session's first UserPromptSubmit carries it (answered by the service,
which is up by then, or waited for). Else it
hands the call to the service once it is up; when none comes up in START_WAIT seconds, or the call
carries other settings than the service's, the call is handled the slow way (`python -m
memory_pipeline.cli hook …`), which prints exactly what the service would have. A hook never fails
the client: it always exits 0.
"""

from __future__ import annotations

import sys

if __name__ == "__main__":  # run as a script: our package folder must not shadow any module
    sys.path[:] = [p for p in sys.path[1:]]

import _socket  # socket's C core: `import socket` builds its enums, 25-35 ms on a busy machine
import os
import stat  # already imported by os
import time

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
SOCKET_NAME = "hook.sock"
SOCKET_PATH_MAX = 100  # sun_path is 108 bytes on Linux, 104 on macOS
MAX_STDIN_BYTES = 16 * 1024 * 1024  # parse_hook_payload says why a bigger input is refused
ANSWER_TIMEOUT = 55.0  # under the 60 s Claude Code gives PreCompact and SessionStart
KEY_VARIABLES = ("HOME", "TZ", "XDG_RUNTIME_DIR")


def workspace_root(environ: dict[str, str]) -> str:
    """MEMORY_WORKSPACE or the default, as Settings resolves it."""
    raw = environ.get("MEMORY_WORKSPACE") or "~/.memory-pipeline/workspace"
    return os.path.realpath(os.path.expanduser(raw))


def socket_path(root: str) -> str | None:
    """`<workspace>/state/hook.sock`, or None when that is too long for a unix socket (no service)."""
    path = os.path.join(root, "state", SOCKET_NAME)
    return path if len(os.fsencode(path)) <= SOCKET_PATH_MAX else None


def socket_refusal(path: str) -> str | None:
    """Why the socket at `path` is not to be trusted, or None. Its folder (`state/`) must be a real
    folder of this user that no one else can write (or another user could put a socket of theirs
    there, or swap ours), and the socket, when there is one, a socket of this user: otherwise a
    caller would hand that user its hook payloads and print what they answer into the agent."""
    folder = os.path.dirname(path)
    try:
        info = os.lstat(folder)
    except OSError:
        return None  # no folder: nothing listens there (the slow path makes the workspace)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        return f"{folder} is not a folder only you can write (chmod go-w it)"
    try:
        found = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISSOCK(found.st_mode) or found.st_uid != os.getuid():
        return f"{path} is not a socket of yours"
    return None


def service_key(environ: dict[str, str]) -> bytes:
    """What a service must share with its caller to answer for it: this code and these settings."""
    names = sorted(n for n in environ if n.startswith("MEMORY_") or n in KEY_VARIABLES)
    text = "\n".join([PACKAGE_DIR, sys.executable] + [f"{n}={environ[n]}" for n in names])
    return text.encode("utf-8", "surrogateescape").replace(b"\0", b"")


# The wire (no json here: importing it costs more than the rest of a call). A request is
# `op \0 agent \0 at \0 key \0` then the hook's stdin bytes, then end of input; the answer is
# `ok <stdout bytes>\n` + stdout + stderr, or `no <why>\n`.
def request_bytes(op: str, agent: str = "", at: float = 0.0, key: bytes = b"", stdin: bytes = b"") -> bytes:
    return b"\0".join([op.encode(), agent.encode(), repr(at).encode(), key, stdin])


def ask_service(path: str, request: bytes, timeout: float = ANSWER_TIMEOUT) -> tuple[str, str] | str | None:
    """(stdout, stderr) when the service answered the call, the reason when it refused, None when
    nothing took the call (none listens, or it closed the connection unanswered: a service stopping;
    PreCompact, SessionEnd and Stop are answered before their work, so none was done). A service
    that took the call but gave no answer in `timeout` is an answer with a note: handling the call
    again could do its work twice."""
    try:
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except OSError:
        return None
    try:
        conn.settimeout(timeout)
        try:
            conn.connect(path)
        except OSError:
            return None
        chunks = []
        try:
            conn.sendall(request)
            conn.shutdown(_socket.SHUT_WR)
            while chunk := conn.recv(1 << 16):
                chunks.append(chunk)
        except TimeoutError:
            return "", f"memory-pipeline hook: the hook service gave no answer in {timeout:g} s\n"
        except OSError:
            return None
    finally:
        conn.close()
    head, _, body = b"".join(chunks).partition(b"\n")
    status, _, size = head.partition(b" ")
    if status == b"no":
        return size.decode("utf-8", "replace")
    if status != b"ok" or not size.isdigit():
        return None
    cut = int(size)
    return body[:cut].decode("utf-8", "replace"), body[cut:].decode("utf-8", "replace")


START_WAIT = 4.0  # a service starting imports the flows: about as long as handling the call without it


def service_starting(path: str) -> bool:
    """Whether a hook service holds its lock (`<socket>.lock`): it is starting or serving."""
    import fcntl

    try:
        handle = open(path + ".lock", "a")  # noqa: SIM115 — closed below
    except OSError:
        return False
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
    return False


def ask_when_up(path: str, request: bytes, started=None, wait: float = START_WAIT,
                grace: float = 0.0) -> tuple[str, str] | str | None:
    """Ask a service that is starting (`started`: the one we just started), once its socket is up;
    None when none comes up in `wait` seconds or none is starting any more (after `grace` seconds:
    one started by another process may not hold its lock yet)."""
    begun = time.monotonic()
    while time.monotonic() - begun < wait:
        if os.path.exists(path):
            answer = ask_service(path, request)
            if answer is not None:
                return answer
        ours_alive = started is not None and started.poll() is None
        if not ours_alive and not service_starting(path) and time.monotonic() - begun >= grace:
            return None
        time.sleep(0.02)
    return None


def child_environment(environ: dict[str, str]) -> dict[str, str]:
    """The caller's environment with this package importable (a child runs the same code)."""
    root = os.path.dirname(PACKAGE_DIR)
    paths = [root] + [p for p in environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != root]
    return {**environ, "PYTHONPATH": os.pathsep.join(paths)}


SERVICE_MODULE = "memory_pipeline.services.hook_service"  # what `start_service` runs (and `stop` looks for)


def start_service(root: str, environ: dict[str, str]):
    """Start the hook service detached (it outlives this hook; it exits at once if one runs); the
    process, or None when the workspace is not made yet (the slow path makes it)."""
    state = os.path.join(root, "state")
    if not os.path.isdir(state):
        return None
    import subprocess

    with open(os.path.join(state, "hook_service.log"), "ab") as log:
        return subprocess.Popen([sys.executable, "-m", SERVICE_MODULE],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=child_environment(environ),
                                cwd=root, start_new_session=True, close_fds=True)  # not the project: it may go


DAEMON_RETRY_SECONDS = 300.0  # a daemon that would not start is tried again after this long, not on every hook


def start_daemon_detached(root: str, environ: dict[str, str]) -> bool:
    """Start the workspace's Dagster daemon (sensors, schedules) when none runs, without waiting: a
    detached `service start --no-recall --unless-stopped` does the work and the checks (a `service stop`
    that comes meanwhile wins). Not after `service stop`
    (state/daemon-stopped), nor with MEMORY_DAEMON_AUTOSTART=0. True when one was asked to start."""
    if environ.get("MEMORY_DAEMON_AUTOSTART", "").strip().lower() in ("0", "false", "no", "off"):
        return False
    state = os.path.join(root, "state")
    if not os.path.isdir(state) or os.path.exists(os.path.join(state, "daemon-stopped")):
        return False
    try:
        with open(os.path.join(state, "daemon.pid"), "rb") as handle:
            pid = int(handle.read().strip() or 0)
        if pid > 0 and _alive(pid) and _runs_daemon(pid):
            return False
    except (OSError, ValueError):
        pass
    tried = os.path.join(state, "daemon-start-tried")
    try:
        if time.time() - os.stat(tried).st_mtime < DAEMON_RETRY_SECONDS:
            return False
    except OSError:
        pass
    import subprocess

    with open(tried, "ab"):
        os.utime(tried)
    with open(os.path.join(state, "daemon.log"), "ab") as log:
        subprocess.Popen([sys.executable, "-m", "memory_pipeline.cli", "service", "start", "--no-recall",
                          "--unless-stopped"],
                         stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=child_environment(environ),
                         cwd=root, start_new_session=True, close_fds=True)
    return True


def _runs_daemon(pid: int) -> bool:
    """The pid runs the daemon's watcher (where /proc tells; elsewhere a live pid is taken for it)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return b"memory_pipeline.services.daemon_watch" in handle.read(4096)
    except FileNotFoundError:
        return not os.path.isdir("/proc/self")
    except OSError:
        return True


def handle_slowly(agent: str, raw: bytes, environ: dict[str, str]) -> tuple[str, str]:
    """The whole CLI in a child process: what the service would have printed."""
    import subprocess

    try:
        done = subprocess.run([sys.executable, "-m", "memory_pipeline.cli", "hook", agent], input=raw,
                              capture_output=True, env=child_environment(environ), timeout=ANSWER_TIMEOUT)
    except (OSError, subprocess.SubprocessError) as exc:
        return "", f"memory-pipeline hook: internal error: {type(exc).__name__}: {exc}\n"
    return done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")


# When no service answers, a call whose answer is known without one is answered at once and left in
# the spool (`state/hooks/spool/`) for the service started behind it, which does its work in order.
NO_OUTPUT = ("PreCompact", "SessionEnd", "Stop", "UserPromptSubmit")  # what they print is always empty
SPOOL = ("state", "hooks", "spool")
BRIEFINGS = ("state", "hooks", "briefings")  # the last SessionStart answer for each folder, by the service
OWED = ("state", "hooks", "owed")  # sessions whose SessionStart was answered before their briefing was made


def hook_fields(raw: bytes) -> tuple[str, str, str, str] | None:
    """(event, source, cwd, session_id) of a hook's input; None when it is not a JSON object."""
    import json

    try:
        document = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(document, dict):
        return None
    event, source, cwd, session_id = (str(document.get(name) or "") for name in ("hook_event_name", "source", "cwd",
                                                                                 "session_id"))
    return event, source, cwd, session_id


def digest(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()[:32]


def briefing_path(root: str, cwd: str) -> str:
    return os.path.join(root, *BRIEFINGS, digest(cwd.encode("utf-8", "surrogateescape")) + ".json")


def owed_path(root: str, session_id: str) -> str:
    """The mark of a session owed its briefing (its SessionStart printed nothing): its first prompt's."""
    return os.path.join(root, *OWED, digest(session_id.encode("utf-8", "surrogateescape")))


def owe_briefing(root: str, raw: bytes) -> str | None:
    """Mark the session of a fresh SessionStart (not after a compaction) as owed its briefing: the
    mark's path; None when the call is no such SessionStart or the mark could not be written."""
    fields = hook_fields(raw)
    if fields is None or fields[0] != "SessionStart" or fields[1] == "compact" or not fields[3]:
        return None
    mark = owed_path(root, fields[3])
    try:
        os.makedirs(os.path.join(root, *OWED), mode=0o700, exist_ok=True)
        with open(mark, "wb"):
            pass
    except OSError:
        return None
    return mark


def answer_from_disk(root: str, raw: bytes, key: bytes) -> str | None:
    """What a call prints when it can be answered without the service: nothing for an event whose
    output is always empty; for a SessionStart (not after a compaction) the answer the service last
    gave a session in the same folder under the same settings, while MEMORY.md is not newer. None
    when only the service can answer."""
    import json

    fields = hook_fields(raw)
    if fields is None:
        return None
    event, source, cwd, session = fields
    if event in NO_OUTPUT:  # but a prompt whose session is owed its briefing carries it: the service's
        return None if event == "UserPromptSubmit" and session and os.path.exists(owed_path(root, session)) else ""
    if event != "SessionStart" or source == "compact" or not cwd:
        return None
    path = briefing_path(root, cwd)
    try:
        with open(path, "rb") as handle:
            cached = json.loads(handle.read())
        made = os.stat(path).st_mtime
    except (OSError, ValueError):
        return None
    try:
        reviewed = os.stat(os.path.join(root, "MEMORY.md")).st_mtime
    except OSError:
        reviewed = 0.0
    if not isinstance(cached, dict) or cached.get("key") != digest(key) or reviewed > made:
        return None
    return str(cached.get("stdout") or "")


def spool(root: str, request: bytes) -> bool:
    """Leave a call for the service (written whole, then renamed); False when it could not be."""
    folder = os.path.join(root, *SPOOL)
    name = os.path.join(folder, f"{time.time_ns():020d}-{os.getpid()}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        with open(name + ".tmp", "wb") as handle:
            handle.write(request)
        os.replace(name + ".tmp", name + ".req")
    except OSError:
        return False
    return True


def answer_hook(agent: str, raw: bytes, environ: dict[str, str], slow=handle_slowly) -> tuple[str, str]:
    """(stdout, stderr) for one hook call: from the service when one answers; when none runs, from
    disk (the call spooled for the service started behind it) when it can be, else from the service
    once it is up; else `slow`."""
    root = workspace_root(environ)
    start_daemon_detached(root, environ)
    path = socket_path(root)
    refused = socket_refusal(path) if path is not None else None
    if refused is not None:
        out, err = slow(agent, raw, environ)
        return out, f"memory-pipeline hook: not using the hook service: {refused}\n" + err
    if path is not None:
        key = service_key(environ)
        request = request_bytes("hook", agent, time.time(), key, raw)
        answer = ask_service(path, request)
        if answer is None:  # none running: start one; answer now when that can be done without it
            starting = service_starting(path)
            ready = os.path.isdir(os.path.join(root, "state"))
            known = answer_from_disk(root, raw, key) if ready else None
            owed = owe_briefing(root, raw) if known is None and ready else None  # its first prompt carries it
            if (known is not None or owed) and spool(root, request):
                if not starting:
                    start_service(root, environ)
                return known or "", ""
            if owed is not None:  # not spooled: the service answers it below, so nothing is owed
                try:
                    os.unlink(owed)
                except OSError:
                    pass
            started = None if starting else start_service(root, environ)
            answer = ask_when_up(path, request, started)
        if isinstance(answer, tuple):
            return answer
    return slow(agent, raw, environ)


def service_pid(root: str, timeout: float = 60.0) -> int | None:
    """The pid of the workspace's hook service, once it has done the work it was given (one still
    starting is waited for: a stop must not miss it); or None."""
    path = socket_path(root)
    if path is None or socket_refusal(path):
        return None
    answer = ask_service(path, request_bytes("ping"), timeout)
    if answer is None and (spooled(root) or service_starting(path)):  # one is starting (holds its lock), or
        # calls were answered while none ran and one is starting to do them: wait for it to come up
        answer = ask_when_up(path, request_bytes("ping"), None, timeout, grace=min(START_WAIT, timeout))
    return int(answer[0]) if isinstance(answer, tuple) and answer[0].isdigit() else None


def spooled(root: str) -> bool:
    try:
        return any(name.endswith(".req") for name in os.listdir(os.path.join(root, *SPOOL)))
    except OSError:
        return False


def stop_service(root: str, timeout: float = 10.0, environ: dict[str, str] | None = None) -> int | None:
    """Stop the workspace's hook service after its pending work and wait for its process to exit;
    the pid it stopped, or None when none was running. The stop carries the service key of
    `environ` (this process's environment by default); a service started with other settings
    refuses it and is sent SIGTERM instead (which only this user may send), ending after its call."""
    pid = service_pid(root, timeout)
    path = socket_path(root)
    if pid is None or path is None:
        return None
    key = service_key(dict(os.environ) if environ is None else environ)
    if isinstance(ask_service(path, request_bytes("stop", key=key), timeout), str):
        import signal

        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            return None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    return pid


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def main(argv: list[str] | None = None, slow=handle_slowly) -> int:
    """`hook_entry.py hook AGENT` (stdin: the hook JSON). Always 0."""
    args = sys.argv[1:] if argv is None else argv
    agent = args[-1] if args else "claude-code"
    try:
        raw = sys.stdin.buffer.read(MAX_STDIN_BYTES + 1)
        out, err = answer_hook(agent, raw, dict(os.environ), slow)
    except Exception as exc:  # noqa: BLE001 — a hook must not break the agent; say what happened
        out, err = "", f"memory-pipeline hook: internal error: {type(exc).__name__}: {exc}\n"
    if out:
        sys.stdout.write(out)
        sys.stdout.flush()
    if err:
        sys.stderr.write(err)
        sys.stderr.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
