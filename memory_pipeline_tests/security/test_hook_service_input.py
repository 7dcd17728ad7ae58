"""The hook service (`state/hook.sock`) answers every hook call of a workspace, so one bad or slow
caller must not take it down or hold up the others, and only a caller with the service's settings
(its key) may stop it.
Before: 200k-deep JSON and a call time of `1e300` killed it (the next call restarted it); a caller
trickling its request held every other call up to 55 s (SessionStart then gave no briefing); a
`stop` with no key stopped it."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from memory_pipeline import hook_entry
from memory_pipeline.cli.hooks.install import hook_argv
from memory_pipeline_tests.cli.hook_helpers import hook_env, payload

SESSION = "0b6f1c7e-5d1a-4c53-9a51-7d0e8a1f2c11"


@pytest.fixture
def service(tmp_path: Path):
    """A workspace whose hook service is up (started by a first call); (workspace, env, pid)."""
    workspace = tmp_path / "workspace"
    (workspace / "state").mkdir(parents=True)
    env = hook_env(workspace)
    door(payload("Stop", None, session_id=SESSION), env)
    pid = hook_entry.service_pid(str(workspace.resolve()))
    assert pid is not None
    yield workspace, env, pid
    hook_entry.stop_service(str(workspace.resolve()), environ=env)


def door(document: dict | bytes, env: dict[str, str]) -> subprocess.CompletedProcess:
    stdin = document if isinstance(document, bytes) else json.dumps(document).encode()
    return subprocess.run(hook_argv(), input=stdin, env=env, capture_output=True, timeout=120)


def ask(workspace: Path, env: dict[str, str], op: str = "hook", at: float | None = None, stdin: bytes = b"",
        key: bytes | None = None, timeout: float = 30):
    """One request straight to the socket, as the door (or anything else) could send it."""
    request = hook_entry.request_bytes(op, "claude-code", time.time() if at is None else at,
                                       hook_entry.service_key(env) if key is None else key, stdin)
    return hook_entry.ask_service(str(workspace / "state" / "hook.sock"), request, timeout)


def start_document() -> bytes:
    return json.dumps(payload("SessionStart", None, session_id=SESSION, source="startup")).encode()


def test_deeply_nested_json_gets_one_clear_line_and_the_service_lives_on(service):
    workspace, env, pid = service
    done = door(b"[" * 200_000 + b"]" * 200_000, env)
    assert done.returncode == 0 and done.stdout == b""
    assert done.stderr.decode().startswith("memory-pipeline hook: ") and done.stderr.count(b"\n") == 1
    nested_object = b'{"a":' * 200_000 + b"1" + b"}" * 200_000
    assert door(nested_object, env).stderr.count(b"\n") == 1
    assert hook_entry.service_pid(str(workspace.resolve())) == pid  # the same service answered


@pytest.mark.parametrize("at", [1e300, float("inf"), float("nan"), -1e20])
def test_a_call_time_that_is_no_time_is_dated_now_and_the_service_lives_on(service, at):
    workspace, env, pid = service
    answer = ask(workspace, env, at=at, stdin=start_document())
    assert isinstance(answer, tuple), answer
    out, err = answer
    assert json.loads(out)["hookSpecificOutput"]["additionalContext"].startswith("# Session briefing"), err
    assert hook_entry.service_pid(str(workspace.resolve())) == pid


def test_a_caller_that_trickles_its_request_does_not_hold_up_the_briefing(service):
    workspace, env, pid = service
    slow = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    slow.connect(str(workspace / "state" / "hook.sock"))
    stop = threading.Event()

    def trickle() -> None:  # a byte a second for 40 s, never finishing its request
        for _ in range(40):
            if stop.wait(1.0):
                return
            try:
                slow.send(b"x")
            except OSError:
                return

    threading.Thread(target=trickle, daemon=True).start()
    try:
        time.sleep(0.3)  # the service has taken the slow caller first
        answer = ask(workspace, env, stdin=start_document(), timeout=20)
    finally:
        stop.set()
        slow.close()
    assert isinstance(answer, tuple) and "gave no answer" not in answer[1], answer
    assert json.loads(answer[0])["hookSpecificOutput"]["additionalContext"].startswith("# Session briefing")
    assert hook_entry.service_pid(str(workspace.resolve())) == pid


def test_stop_needs_the_services_key(service):
    workspace, env, pid = service
    assert ask(workspace, env, op="stop", key=b"") == "called with other settings"
    assert ask(workspace, env, op="stop", key=b"guessed") == "called with other settings"
    assert hook_entry.service_pid(str(workspace.resolve())) == pid  # still serving
    assert hook_entry.stop_service(str(workspace.resolve()), environ=env) == pid
    assert hook_entry.service_pid(str(workspace.resolve()), timeout=2) is None


def test_stop_with_other_settings_still_ends_the_service_by_a_signal(service):
    workspace, env, pid = service
    other = hook_env(workspace, MEMORY_CONTEXT_WINDOW="50000")
    assert hook_entry.stop_service(str(workspace.resolve()), environ=other) == pid
    assert not Path(f"/proc/{pid}").exists()
    assert not (workspace / "state" / "hook.sock").exists()  # it cleaned up after itself
