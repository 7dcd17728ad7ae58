"""The always-on pipeline left to itself: the Dagster daemon sleeps while there is nothing to do and
wakes for an event, and a daemon killed outright (kill -9, a crash, a machine that went down) is
started again by the next session's first hook, which does not wait for it, and the events left
in the inbox are processed. Nothing of the killed daemon stays behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memory_pipeline.resources.daemons.dagster_daemon import daemon_pid
from memory_pipeline.resources.processes import children_of, command_line, process_alive
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.cli.hook_helpers import hook_env, payload, run_cli, wait_for
from memory_pipeline_tests.support.leaks import leftover_services

pytestmark = pytest.mark.slow

HOOK_ENTRY = Path(__file__).resolve().parents[2] / "memory_pipeline" / "hook_entry.py"
SAMPLES = Path(__file__).resolve().parents[2] / "memory_pipeline" / "samples"


def emit(env, sample: str, session_id: str) -> None:
    done = run_cli(["emit", "--trigger", "shutdown", "--transcript", str(SAMPLES / sample), "--session-id", session_id,
                    "--json"], env, timeout=180)
    assert done.returncode == 0 and json.loads(done.stdout)["observed"], done.stderr


def observed(workspace: Workspace, session_id: str) -> bool:
    return any(session_id in path.read_text(encoding="utf-8") for path in workspace.root.glob("observations/*/*.json"))


def described(pids: list[int]) -> list[str]:
    return [f"{pid} {command_line(pid)[:4]} {Path(f'/proc/{pid}/stat').read_text()[:80] if process_alive(pid) else 'gone'}"
            for pid in pids]


def asleep(pid: int) -> bool:
    """The watcher runs no Dagster process (its code server and daemon are its children)."""
    return process_alive(pid) and not children_of(pid)


def test_the_daemon_sleeps_when_idle_and_an_event_wakes_it(tmp_path: Path):
    workspace = Workspace(tmp_path / "ws").create()
    env = hook_env(workspace.root, MEMORY_DAEMON_IDLE_STOP="5")
    try:
        started = run_cli(["service", "start", "--no-recall"], env, timeout=240)
        assert started.returncode == 0, started.stderr
        pid = daemon_pid(workspace)
        assert pid is not None and len(children_of(pid)) == 2  # the code server and dagster-daemon
        wait_for(lambda: asleep(pid), 120, 0.5, what="the Dagster daemon put to sleep")
        emit(env, "codex-ci-fix.jsonl", "woken-by-this")
        wait_for(lambda: children_of(pid), 30, 0.2, what="the watcher waking the Dagster daemon")
        wait_for(lambda: observed(workspace, "woken-by-this"), 300, 1, what="the event's observation")
        wait_for(lambda: asleep(pid), 300, 1, what="sleep again after the run")
        log = workspace.state_path("daemon_log").read_text(encoding="utf-8", errors="replace")
        assert "waking the Dagster daemon: an event in the inbox" in log
        assert daemon_pid(workspace) == pid  # one watcher throughout
    finally:
        run_cli(["service", "stop"], env, timeout=180)
    assert leftover_services(tmp_path) == []


def test_a_killed_daemon_is_started_again_by_the_next_hook_and_processes_what_it_left(tmp_path: Path):
    workspace = Workspace(tmp_path / "ws").create()
    env = hook_env(workspace.root, MEMORY_DAEMON_AUTOSTART="1")
    session_start = json.dumps(payload("SessionStart", None, source="startup")).encode()
    hook = [sys.executable, "-S", str(HOOK_ENTRY), "hook", "claude-code"]
    try:
        first = subprocess.run(hook, input=session_start, env=env, capture_output=True, timeout=120)
        assert first.returncode == 0, first.stderr
        killed = wait_for(lambda: daemon_pid(workspace), 180, 0.5, what="the daemon the first hook started")
        members = [killed, *wait_for(lambda: len(children_of(killed)) == 2 and children_of(killed), 180, 0.5,
                                     what="its code server and dagster-daemon")]
        # up: the start the hook asked for is done, so its retry pause is lifted (a daemon that would not
        # start is tried again only after 5 minutes; one that ran and died is started by the next hook)
        wait_for(lambda: not (workspace.state / "daemon-start-tried").exists(), 180, 0.5, what="the start done")
        os.kill(killed, signal.SIGKILL)
        wait_for(lambda: not any(process_alive(p) for p in members), 60, 0.5,
                 what=f"the killed daemon's code server and dagster-daemon exiting: {members}, {described(members)}")
        assert daemon_pid(workspace) is None
        emit(env, "codex-ci-fix.jsonl", "left-in-the-inbox")  # an event the dead daemon left in the inbox

        began = time.monotonic()
        again = subprocess.run(hook, input=session_start, env=env, capture_output=True, timeout=120)
        print(f"the new session's first hook, starting the daemon: {time.monotonic() - began:.2f} s")
        assert again.returncode == 0 and b"Session briefing" in again.stdout, again.stderr
        restarted = wait_for(lambda: daemon_pid(workspace), 180, 0.5, what="the daemon the hook started")
        assert restarted != killed
        wait_for(lambda: observed(workspace, "left-in-the-inbox"), 300, 1, what="the left event's observation")
        assert not any(process_alive(p) for p in members)
    finally:
        run_cli(["service", "stop"], env, timeout=180)
    assert leftover_services(tmp_path) == []
