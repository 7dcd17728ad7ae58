"""Windows sent by the hooks, as real hook processes: disjoint whichever hook sends them, compaction
events only for compactions that happened, short windows waiting for the next one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memory_pipeline.resources.daemons.services import stop_workspace_services
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.transcripts import files_touched, parse_transcript
from memory_pipeline_tests.cli.hook_helpers import (
    BIG_SESSION,
    before_compaction,
    compacted,
    hook_env,
    hook_state,
    inbox_events,
    payload,
    run_hook,
    telemetry,
    wait_for,
)
from memory_pipeline_tests.support.doors import runtime_dir
from memory_pipeline_tests.support.paths import fixture_transcript


@pytest.fixture
def ws(tmp_path: Path):
    folder = tmp_path / "workspace"
    yield folder
    # a compaction's recovery recalls (the checkpoint's point makes the store non-empty): its recall service
    # is stopped with the workspace's other services, once the checkpoint's detached indexing is done
    if folder.is_dir():
        log = folder / "state" / "hooks" / "telemetry.jsonl"
        if log.is_file() and any(d["decision"] == "checkpoint" for d in telemetry(folder)):
            wait_for(lambda: any(d["decision"].startswith("checkpoint_") for d in telemetry(folder)), 60, 0.5,
                     what="the checkpoint's detached indexing")
        stop_workspace_services(Workspace(folder), runtime_dir())


def window_ids(ws: Path) -> list[list[str]]:
    inbox = Inbox(Workspace(ws))
    return [[m.id for m in inbox.load_transcript(e).messages] for e in inbox_events(ws)]


def test_the_compaction_event_is_sent_once_the_compaction_shows(ws: Path, tmp_path: Path):
    path = before_compaction(tmp_path / "session.jsonl")
    done = run_hook(payload("PreCompact", path, trigger="auto"), hook_env(ws))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert inbox_events(ws) == [] and hook_state(ws)["pending_compaction"]["trigger"] == "auto"
    assert hook_state(ws)["checkpoint"]["reason"] == "pre-compact"
    before = parse_transcript(path)
    compacted(path)  # the client wrote its compaction
    done = run_hook(payload("SessionStart", path, source="compact"), hook_env(ws))
    assert done.returncode == 0, done.stderr
    [event] = inbox_events(ws)
    assert event.name == "memory/session.compaction.pending" and event.data.observing == "observed"
    assert window_ids(ws) == [[m.id for m in before.messages]]  # up to the summary, not the summary
    assert event.data.tokens_before > 150_000 and hook_state(ws)["shown_window"] == 200_000
    assert hook_state(ws)["pending_compaction"] is None
    # then the session goes on and ends: only what came after the compaction is sent
    Path(path).write_text(fixture_transcript(BIG_SESSION).read_text(encoding="utf-8"), encoding="utf-8")
    assert run_hook(payload("SessionEnd", path, reason="other"), hook_env(ws)).returncode == 0
    first, second = window_ids(ws)
    assert not set(first) & set(second)
    after = parse_transcript(path).messages[len(before.messages) + 1:]
    assert second == [m.id for m in after]


def test_an_abandoned_compaction_sends_nothing(ws: Path, tmp_path: Path):
    path = before_compaction(tmp_path / "session.jsonl")
    assert run_hook(payload("PreCompact", path, trigger="auto"), hook_env(ws)).returncode == 0
    # the client gave the compaction up: no compact boundary is written, the session ends
    done = run_hook(payload("SessionEnd", path, reason="other"), hook_env(ws))
    assert done.returncode == 0, done.stderr
    [event] = inbox_events(ws)
    assert event.name == "memory/session.ended"
    decisions = [d["decision"] for d in telemetry(ws) if not d["decision"].startswith("checkpoint_")]  # not the
    assert decisions == ["checkpoint", "compaction_abandoned", "emitted"]  # checkpoint's indexing, done detached


def test_a_window_lists_the_files_of_its_own_messages(ws: Path, tmp_path: Path):
    path = before_compaction(tmp_path / "session.jsonl")
    run_hook(payload("PreCompact", path, trigger="auto"), hook_env(ws))
    compacted(path)
    run_hook(payload("SessionStart", path, source="compact"), hook_env(ws))
    path.write_text(fixture_transcript(BIG_SESSION).read_text(encoding="utf-8"), encoding="utf-8")
    run_hook(payload("SessionEnd", path, reason="other"), hook_env(ws))
    first, second = inbox_events(ws)
    whole = parse_transcript(path)
    assert set(first.data.files_modified) | set(second.data.files_modified) == set(whole.files_modified)
    tail = whole.messages[[m.id for m in whole.messages].index(second.data.window_start_id):]
    assert second.data.files_modified == files_touched(tail)[1] != whole.files_modified


def _turn(n: int, text: str, answer: str) -> str:
    user = {"type": "user", "uuid": f"u{n}", "sessionId": "turns", "cwd": "/tmp/p",
            "timestamp": f"2026-11-24T10:0{n}:00Z", "message": {"role": "user", "content": text}}
    said = {"type": "assistant", "uuid": f"a{n}", "sessionId": "turns", "cwd": "/tmp/p",
            "timestamp": f"2026-11-24T10:0{n}:30Z",
            "message": {"id": f"m{n}", "role": "assistant", "content": [{"type": "text", "text": answer}]}}
    return json.dumps(user) + "\n" + json.dumps(said) + "\n"


TURNS = [("what does the retry helper do?", "It retries three times with a fixed delay."),
         ("should it back off?", "Yes: exponential backoff avoids hammering the service."),
         ("ok, we keep a fixed delay for now", "Noted: fixed delay stays.")]


def test_one_process_per_turn_windows_wait_and_are_observed_together(ws: Path, tmp_path: Path):
    """`claude -p --resume`: each turn is its own process and its own SessionEnd."""
    path = tmp_path / "turns.jsonl"
    text = ""
    for n, (question, answer) in enumerate(TURNS, 1):
        text += _turn(n, question, answer)
        path.write_text(text, encoding="utf-8")
        done = run_hook(payload("SessionEnd", path, session_id="turns", reason="other"), hook_env(ws))
        assert done.returncode == 0, done.stderr
    events = inbox_events(ws)
    assert [e.data.observing for e in events] == ["waiting", "waiting", "observed"]
    assert window_ids(ws) == [["u1", "a1"], ["u2", "a2"], ["u1", "a1", "u2", "a2", "u3", "a3"]]
    assert hook_state(ws, "turns")["waiting_from_id"] is None


def test_a_waiting_window_is_judged_when_the_session_ends_for_good(ws: Path, tmp_path: Path):
    path = tmp_path / "turns.jsonl"
    path.write_text(_turn(1, *TURNS[0]), encoding="utf-8")
    assert run_hook(payload("SessionEnd", path, session_id="turns", reason="other"), hook_env(ws)).returncode == 0
    path.write_text(_turn(1, *TURNS[0]) + _turn(2, *TURNS[1]), encoding="utf-8")
    done = run_hook(payload("SessionEnd", path, session_id="turns", reason="logout"), hook_env(ws))
    assert b"indexed, not observed: 2 user messages" in done.stderr  # over, and too little to observe
    assert [e.data.observing for e in inbox_events(ws)] == ["waiting", "skipped"]
    assert hook_state(ws, "turns")["waiting_from_id"] is None


def test_concurrent_hooks_on_one_session_never_send_a_message_twice(ws: Path, tmp_path: Path):
    path = compacted(tmp_path / "session.jsonl")
    env = hook_env(ws)
    hooks = [payload("SessionStart", path, source="compact")] + [payload("SessionEnd", path, reason="other")] * 3
    procs = [subprocess.Popen([sys.executable, "-m", "memory_pipeline.cli", "hook", "claude-code"], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in hooks]
    for proc, hook in zip(procs, hooks, strict=True):
        proc.stdin.write(json.dumps(hook).encode())
        proc.stdin.close()
    assert [proc.wait(timeout=120) for proc in procs] == [0, 0, 0, 0]
    sent = [mid for ids in window_ids(ws) for mid in ids]
    assert sent and len(sent) == len(set(sent))
    messages = parse_transcript(path).messages
    # every message went out once (the summary too when a SessionEnd came first: it only restates)
    assert {m.id for m in messages if not m.is_compaction_summary} <= set(sent) <= {m.id for m in messages}


def test_the_first_prompt_is_tracked_before_the_transcript_exists(ws: Path, tmp_path: Path):
    path = tmp_path / "not-yet.jsonl"
    done = run_hook(payload("UserPromptSubmit", path, session_id="fresh", prompt="add a retry to the uploader"),
                    hook_env(ws))
    assert done.returncode == 0 and done.stdout == b"" and done.stderr == b"", done.stderr
    state = hook_state(ws, "fresh")
    assert state["transcript_path"] == str(path) and state["zone"] == "cold"
    assert telemetry(ws)[-1]["decision"] == "tracked"
