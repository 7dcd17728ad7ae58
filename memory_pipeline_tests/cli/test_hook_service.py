"""The hook's fast door (memory_pipeline/hook_entry.py) and the hook service behind it: the command
`install-hooks` writes and the one earlier versions wrote print what the whole CLI prints, the
service answers after the first call, deferred events are done before the next call, and a hook
never fails (exit 0) or leaves a process behind."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from memory_pipeline import hook_entry
from memory_pipeline.cli.hooks.install import hook_argv
from memory_pipeline.resources.daemons.services import stop_workspace_services, workspace_processes
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.cli.hook_helpers import first_user_turns, hook_env, payload, run_hook, telemetry, wait_for
from memory_pipeline_tests.support.doors import runtime_dir

SESSION = "0b6f1c7e-5d1a-4c53-9a51-7d0e8a1f2c11"
CONSOLE_SCRIPT = Path(sys.executable).parent / "memory-pipeline"


def call(argv: list[str], document: dict | bytes, env: dict[str, str]) -> subprocess.CompletedProcess:
    stdin = document if isinstance(document, bytes) else json.dumps(document).encode()
    return subprocess.run(argv, input=stdin, env=env, capture_output=True, timeout=120)


@pytest.fixture
def ws(tmp_path: Path):
    workspace = tmp_path / "workspace"
    (workspace / "state").mkdir(parents=True)  # as after a first hook: a service may start
    yield workspace
    stop_workspace_services(Workspace(workspace), runtime_dir())  # a service a last hook just started too


def test_the_installed_command_answers_like_the_cli_and_then_from_the_service(ws: Path, tmp_path: Path):
    env = hook_env(ws)
    start = payload("SessionStart", None, session_id=SESSION, source="startup")
    by_cli = run_hook(start, env)
    briefing = json.loads(by_cli.stdout)["hookSpecificOutput"]["additionalContext"]
    assert briefing.startswith("# Session briefing")
    first = call(hook_argv(), start, env)  # no service, a folder never briefed: answered at once, owed its briefing
    assert first.returncode == 0 and first.stdout == b"", first.stdout
    pid = hook_entry.service_pid(str(ws.resolve()))
    assert pid is not None  # the first call started it
    transcript = first_user_turns("claude-code/tool_heavy.jsonl", 2, tmp_path / "session.jsonl")
    prompt = payload("UserPromptSubmit", transcript, session_id=SESSION, prompt="Start the server")
    carried = call(hook_argv(), prompt, env)  # the session's first prompt carries the briefing
    assert carried.returncode == 0
    assert json.loads(carried.stdout)["hookSpecificOutput"] == {"hookEventName": "UserPromptSubmit",
                                                                "additionalContext": briefing}
    assert call(hook_argv(), prompt, env).stdout == b""  # once
    again = call(hook_argv(), start, env)
    assert again.returncode == 0 and again.stdout == by_cli.stdout
    assert hook_entry.service_pid(str(ws.resolve())) == pid


def test_a_first_session_start_in_a_new_folder_never_waits_and_its_first_prompt_carries_the_briefing(ws: Path,
                                                                                                      tmp_path: Path):
    env = hook_env(ws)
    root = str(ws.resolve())
    start = json.dumps(payload("SessionStart", None, session_id=SESSION, source="startup")).encode()
    transcript = first_user_turns("claude-code/tool_heavy.jsonl", 2, tmp_path / "session.jsonl")
    prompt = json.dumps(payload("UserPromptSubmit", transcript, session_id=SESSION, prompt="hi")).encode()
    with held_lock(ws):  # a service is starting and none is up: the start is not held, the prompt waits for it
        assert hook_entry.answer_hook("claude-code", start, env, slow_marker) == ("", "")
        assert os.path.exists(hook_entry.owed_path(root, SESSION))
        assert hook_entry.answer_hook("claude-code", prompt, env, slow_marker)[0] == "answered the slow way"
        other = json.dumps(payload("UserPromptSubmit", transcript, session_id="another", prompt="hi")).encode()
        assert hook_entry.answer_hook("claude-code", other, env, slow_marker) == ("", "")  # owed nothing
    hook_entry.start_service(root, env)
    assert hook_entry.service_pid(root) is not None
    out, _ = hook_entry.answer_hook("claude-code", prompt, env, slow_marker)
    assert json.loads(out)["hookSpecificOutput"]["additionalContext"].startswith("# Session briefing")
    assert not os.path.exists(hook_entry.owed_path(root, SESSION))
    ended = json.dumps(payload("SessionEnd", transcript, session_id="ends-first", reason="exit")).encode()
    assert hook_entry.answer_hook("claude-code", json.dumps(payload(
        "SessionStart", None, session_id="ends-first", source="startup", cwd="/home/USER/projects/new")).encode(),
        env, slow_marker)[0].startswith("{")  # a service runs: it answers the start itself, nothing owed
    assert not os.path.exists(hook_entry.owed_path(root, "ends-first"))
    hook_entry.answer_hook("claude-code", ended, env, slow_marker)


@pytest.mark.skipif(not CONSOLE_SCRIPT.is_file(), reason="no memory-pipeline console script beside this Python")
def test_the_command_earlier_versions_installed_still_works(ws: Path):
    env = hook_env(ws)
    start = payload("SessionStart", None, session_id=SESSION, source="startup")
    first = call([str(CONSOLE_SCRIPT), "hook", "claude-code"], start, env)
    assert first.returncode == 0 and first.stdout == b""  # no service yet: owed, the service started behind it
    assert hook_entry.service_pid(str(ws.resolve())) is not None
    done = call([str(CONSOLE_SCRIPT), "hook", "claude-code"], start, env)
    assert done.returncode == 0 and done.stdout == run_hook(start, env).stdout


@pytest.mark.parametrize("stdin", [b"", b"not json", b'{"hook_event_name": "SessionStart"}', b"\xff\xfe"])
def test_bad_input_exits_0_with_one_line_on_stderr_and_nothing_on_stdout(ws: Path, stdin: bytes):
    env = hook_env(ws)
    call(hook_argv(), payload("Stop", None, session_id=SESSION), env)  # starts the service
    done = call(hook_argv(), stdin, env)
    assert done.returncode == 0 and done.stdout == b""
    assert done.stderr.decode().startswith("memory-pipeline hook: ") and done.stderr.count(b"\n") == 1
    assert done.stderr == run_hook(stdin, env).stderr


def test_session_end_is_answered_at_once_and_done_before_the_next_call(ws: Path, tmp_path: Path):
    env = hook_env(ws)
    call(hook_argv(), payload("Stop", None, session_id=SESSION), env)
    transcript = first_user_turns("claude-code/tool_heavy.jsonl", 6, tmp_path / "session.jsonl")
    ended = call(hook_argv(), payload("SessionEnd", transcript, session_id=SESSION, reason="exit"), env)
    assert ended.returncode == 0 and ended.stdout == b"" and ended.stderr == b""
    hook_entry.service_pid(str(ws.resolve()))  # answers once the work before it is done
    [decision] = [d for d in telemetry(ws) if d["hook"] == "SessionEnd"]
    assert decision["decision"] == "emitted"
    assert list((ws / "inbox").glob("*-shutdown-*.json"))


def test_a_call_with_other_settings_is_handled_by_the_cli(ws: Path):
    env = hook_env(ws)
    call(hook_argv(), payload("Stop", None, session_id=SESSION), env)
    pid = hook_entry.service_pid(str(ws.resolve()))
    other = hook_env(ws, MEMORY_CONTEXT_WINDOW="50000")
    start = payload("SessionStart", None, session_id=SESSION, source="startup")
    done = call(hook_argv(), start, other)
    assert done.returncode == 0 and done.stdout == run_hook(start, other).stdout
    assert hook_entry.service_pid(str(ws.resolve())) == pid  # still the first one's service


def test_stop_stops_the_service(ws: Path):
    env = hook_env(ws)
    call(hook_argv(), payload("Stop", None, session_id=SESSION), env)
    pid = hook_entry.service_pid(str(ws.resolve()))
    assert pid is not None
    done = subprocess.run([sys.executable, "-m", "memory_pipeline.cli", "stop", "--json"], env=env,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "hook-service" in {p["name"] for p in json.loads(done.stdout)["stopped"]}
    assert hook_entry.service_pid(str(ws.resolve())) is None and not (ws / "state" / "hook.sock").exists()
    assert not Path(f"/proc/{pid}").exists()  # stop waited for it to exit


def test_a_stop_right_after_a_hook_started_the_service_stops_it_too(ws: Path):
    """A hook starts the service and returns at once: a stop that comes before the service answers
    (or holds its lock) still finds it, by its command line and folder, and nothing is left running."""
    workspace = Workspace(ws)
    started = hook_entry.start_service(str(ws.resolve()), hook_env(ws))
    assert started.pid in {p.pid for p in workspace_processes(workspace, runtime_dir()) if p.name == "hook-service"}
    stopped = stop_workspace_services(workspace, runtime_dir())
    assert started.pid in {p.pid for p in stopped if p.name == "hook-service"}
    assert started.wait(timeout=30) is not None
    assert not [p for p in workspace_processes(workspace, runtime_dir()) if p.name == "hook-service"]


def test_install_hooks_writes_the_fast_door(ws: Path):
    words = hook_argv()
    assert words[1] == "-S" and words[2].endswith("hook_entry.py") and words[3:] == ["hook", "claude-code"]
    assert shlex.split(" ".join(shlex.quote(w) for w in words)) == words


def test_a_service_that_takes_a_call_but_never_answers_is_a_note_not_a_second_try(tmp_path: Path):
    import socket
    import threading

    path = str(tmp_path / "hook.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(4)
    taken: list[socket.socket] = []

    def take(answer: bool) -> None:
        conn, _ = listener.accept()
        taken.append(conn)
        if not answer:
            conn.recv(1 << 16)
            conn.close()  # closed unanswered: a service stopping

    try:
        threading.Thread(target=take, args=(True,), daemon=True).start()
        out, err = hook_entry.ask_service(path, hook_entry.request_bytes("hook"), timeout=0.3)
        assert out == "" and "gave no answer in 0.3 s" in err
        threading.Thread(target=take, args=(False,), daemon=True).start()
        assert hook_entry.ask_service(path, hook_entry.request_bytes("hook"), timeout=5) is None
        assert hook_entry.ask_service(str(tmp_path / "none.sock"), b"ping") is None
    finally:
        for conn in taken:
            conn.close()
        listener.close()


def slow_marker(agent: str, raw: bytes, environ: dict[str, str]) -> tuple[str, str]:
    return "answered the slow way", ""


def held_lock(ws: Path):
    """The service lock held here: to a hook call, a service is starting (and none is up)."""
    import fcntl

    handle = open(hook_entry.socket_path(str(ws.resolve())) + ".lock", "a")  # noqa: SIM115 — closed by the caller
    fcntl.flock(handle, fcntl.LOCK_EX)
    return handle


def test_a_first_call_that_prints_nothing_does_not_wait_and_its_work_is_done_by_the_service(ws: Path, tmp_path: Path):
    env = hook_env(ws)
    transcript = first_user_turns("claude-code/tool_heavy.jsonl", 6, tmp_path / "session.jsonl")
    ended = json.dumps(payload("SessionEnd", transcript, session_id=SESSION, reason="exit")).encode()
    with held_lock(ws):  # a service is starting: the call is not held until it is up (nor done the slow way)
        assert hook_entry.answer_hook("claude-code", ended, env, slow_marker) == ("", "")
        assert len(list(ws.joinpath(*hook_entry.SPOOL).glob("*.req"))) == 1
        assert not list((ws / "inbox").glob("*.json"))
    hook_entry.start_service(str(ws.resolve()), env)
    assert hook_entry.service_pid(str(ws.resolve())) is not None  # answers once the spooled work is done
    assert not list(ws.joinpath(*hook_entry.SPOOL).glob("*.req"))
    [decision] = [d for d in telemetry(ws) if d["hook"] == "SessionEnd"]
    assert decision["decision"] == "emitted" and list((ws / "inbox").glob("*-shutdown-*.json"))


def test_a_first_session_start_answers_from_disk_what_the_service_gave_that_folder(ws: Path):
    env = hook_env(ws)
    root = str(ws.resolve())
    start = payload("SessionStart", None, session_id=SESSION, source="startup")
    assert call(hook_argv(), start, env).stdout == b""  # nothing on disk yet: owed, the service started behind it
    assert hook_entry.service_pid(root) is not None
    first = call(hook_argv(), start, env)  # the service answers, and keeps the answer for the folder
    assert json.loads(first.stdout)["hookSpecificOutput"]["additionalContext"].startswith("# Session briefing")
    hook_entry.stop_service(root)
    raw = json.dumps(start).encode()
    with held_lock(ws):
        assert hook_entry.answer_hook("claude-code", raw, env, slow_marker) == (first.stdout.decode(), "")
        other = json.dumps({**start, "cwd": "/home/USER/projects/elsewhere"}).encode()  # another folder: not known
        assert hook_entry.answer_hook("claude-code", other, env, slow_marker) == ("", "")  # owed its briefing
        (ws / "MEMORY.md").write_text("# MEMORY\n\n## Hard Rules\n\n- (2026-11-29) A rule reviewed since\n")
        assert hook_entry.answer_hook("claude-code", raw, env, slow_marker) == ("", "")  # stale: owed a new one
    hook_entry.start_service(root, env)
    assert hook_entry.service_pid(root) is not None
    injected = [d for d in telemetry(ws) if d["hook"] == "SessionStart" and d["decision"] == "inject"]
    assert len(injected) == 5  # the owed first call, the second, the one from disk, the other folder, the stale one
    again = call(hook_argv(), start, env)
    assert "A rule reviewed since" in json.loads(again.stdout)["hookSpecificOutput"]["additionalContext"]


def test_a_service_that_answered_no_hook_gives_way_to_the_hooks_settings(ws: Path):
    """The MCP door starts the service with its client's environment (Codex passes MCP servers only a
    few variables): when a hook call comes with other settings, that service stops after refusing it,
    and the hooks' next call starts one with theirs, instead of every hook taking the slow way."""
    root = str(ws.resolve())
    door = hook_env(ws, MEMORY_CONTEXT_WINDOW="50000")  # not the hooks' environment
    hook_entry.start_service(root, door)
    assert wait_for(lambda: hook_entry.service_pid(root)) is not None
    first = hook_entry.service_pid(root)
    env = hook_env(ws)
    start = payload("SessionStart", None, session_id=SESSION, source="startup")
    done = call(hook_argv(), start, env)  # refused by the door's service: the slow way, this once
    assert done.returncode == 0 and done.stdout == run_hook(start, env).stdout
    assert wait_for(lambda: not Path(f"/proc/{first}").exists())  # it gave way
    assert call(hook_argv(), start, env).stdout == b""  # none runs: owed, a service with the hooks' settings started
    second = hook_entry.service_pid(root)
    again = call(hook_argv(), start, env)
    assert again.returncode == 0 and again.stdout == done.stdout
    assert second is not None and second != first
    assert call(hook_argv(), start, door).stdout == run_hook(start, door).stdout  # refused, not given way
    assert hook_entry.service_pid(root) == second
