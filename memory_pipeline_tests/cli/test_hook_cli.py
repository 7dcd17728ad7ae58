"""`memory-pipeline hook claude-code` as a subprocess with real hook payloads (no model needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_pipeline_tests.cli.hook_helpers import (
    BIG_SESSION,
    SESSION_ID,
    all_files,
    hook_env,
    hook_state,
    payload,
    run_hook,
    telemetry,
    wait_for,
)
from memory_pipeline_tests.support.paths import fixture_transcript


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return tmp_path / "workspace"


BAD_INPUTS = {
    "empty": b"",
    "not-json": b"session ended",
    "not-an-object": b'["PreCompact"]',
    "missing-fields": b'{"hook_event_name": "PreCompact"}',
    "unknown-event": json.dumps(payload("Notification", "/tmp/x.jsonl")).encode(),
    "no-such-transcript": json.dumps(payload("PreCompact", "/nonexistent/t.jsonl")).encode(),
    "unsafe-session": json.dumps(payload("SessionEnd", "/tmp/x.jsonl", session_id="../../etc")).encode(),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_exits_zero_with_one_line_and_writes_nothing(ws: Path, name: str):
    done = run_hook(BAD_INPUTS[name], hook_env(ws))
    assert done.returncode == 0 and done.stdout == b""
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memory-pipeline hook: ")
    assert all_files(ws) == []


def test_a_file_that_is_not_a_claude_code_transcript(ws: Path, tmp_path: Path):
    for path in (fixture_transcript("pi/before-compaction.jsonl"), tmp_path / "notes.txt"):
        if path.suffix == ".txt":
            path.write_text("just some notes\n")
        done = run_hook(payload("PreCompact", path), hook_env(ws))
        assert done.returncode == 0 and b"not a Claude Code transcript" in done.stderr
    assert all_files(ws) == []


def test_huge_transcript_is_read_in_part_by_precompact_and_tailed_by_prompt_submit(ws: Path, tmp_path: Path):
    """Over the 64 MB limit a transcript is read from its newest part (issue 47: it was refused)."""
    huge = tmp_path / "huge.jsonl"
    filler = json.dumps({"type": "progress", "uuid": "p", "sessionId": SESSION_ID, "data": "x" * 900}) + "\n"
    with huge.open("w") as handle:
        handle.write(filler * 75_000)  # ~70 MB, over the 64 MB transcript limit
        handle.write(fixture_transcript(BIG_SESSION).read_text())
    done = run_hook(payload("PreCompact", huge), hook_env(ws))
    assert done.returncode == 0 and b"over the" not in done.stderr and b"Traceback" not in done.stderr, done.stderr
    done = run_hook(payload("UserPromptSubmit", huge, prompt="keep going"), hook_env(ws))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert hook_state(ws)["context_tokens"] == 106_060
    wait_for(lambda: hook_state(ws)["recall_started_at"] is None)  # the detached refresh has finished


def test_prompt_submit_tracks_zones_and_fills_the_recall_cache(ws: Path):
    path = fixture_transcript(BIG_SESSION)
    env = hook_env(ws, MEMORY_CONTEXT_WINDOW="200000")  # this session ran with a 200k window (it compacted at 170k)
    done = run_hook(payload("UserPromptSubmit", path, prompt="fix the failing transcript renderer tests"), env)
    assert done.returncode == 0 and done.stdout == b"", done.stderr
    state = hook_state(ws)
    assert state["zone"] == "warm" and state["context_window"] == 200_000  # 106k of 200k = 53 %
    assert state["checkpoint"] is None
    queued = state["pending_queries"]  # [] when the detached refresh (an empty store: quick) already took them
    # the detached refresh runs the queued queries (an empty store answers with no hits) and clears the flag
    state = wait_for(lambda: (s := hook_state(ws))["recall_started_at"] is None and s)
    cached = [e["query"] for e in state["recall_cache"]]
    assert cached and "renderer tests" in cached[-1] and state["pending_queries"] == []
    assert not queued or cached == queued  # when read before the refresh: the queue is what it answered
    decisions = [d["decision"] for d in telemetry(ws)]
    assert decisions[0] == "warm" and "recall_cached" in decisions

    # same task again: no second refresh; a smaller window puts the session in the hot zone
    hot = hook_env(ws, MEMORY_CONTEXT_WINDOW="150000")
    done = run_hook(payload("UserPromptSubmit", path, prompt="fix the failing transcript renderer tests"), hot)
    assert done.returncode == 0, done.stderr
    state = hook_state(ws)
    assert state["zone"] == "hot" and state["checkpoint"]["reason"] == "hot-zone"
    assert state["checkpoint"]["context_percent"] == 70.7
    assert "renderer tests" in state["checkpoint"]["current_task"]
    said = [d["decision"] for d in telemetry(ws) if not d["decision"].startswith("checkpoint_")]  # not the
    assert said[-2:] == ["hot", "checkpoint"]  # checkpoint's indexing, done detached and logged when it ends


def test_large_context_models_and_a_bad_window_setting(ws: Path):
    path = fixture_transcript(BIG_SESSION)
    done = run_hook(payload("UserPromptSubmit", path, prompt="go on"), hook_env(ws))  # claude-opus-4-6: 1M
    assert done.returncode == 0 and hook_state(ws)["context_window"] == 1_000_000 and hook_state(ws)["zone"] == "cold"
    reported = payload("UserPromptSubmit", path, prompt="go on", context_window={"context_window_size": 150_000})
    assert run_hook(reported, hook_env(ws)).returncode == 0 and hook_state(ws)["zone"] == "hot"
    done = run_hook(payload("UserPromptSubmit", path, prompt="go on"), hook_env(ws, MEMORY_CONTEXT_WINDOW="1000000"))
    assert done.returncode == 0 and hook_state(ws)["zone"] == "cold"
    done = run_hook(payload("UserPromptSubmit", path, prompt="go on"), hook_env(ws, MEMORY_CONTEXT_WINDOW="lots"))
    assert done.returncode == 0 and b"MEMORY_CONTEXT_WINDOW" in done.stderr


def test_compaction_with_nothing_to_recover_injects_nothing(ws: Path):
    done = run_hook(payload("SessionStart", "/nonexistent/t.jsonl", session_id="lost", source="compact"), hook_env(ws))
    assert done.returncode == 0 and done.stdout == b"" and b"recovery pointer skipped" in done.stderr
    skipped, decision = telemetry(ws)
    assert skipped["decision"] == "skipped" and "transcript not found" in skipped["why"]  # no compaction event
    assert decision["decision"] == "inject_skipped" and decision["reason"] == "nothing-to-recover"
    assert hook_state(ws, "lost")["compaction_count"] == 1  # the cooldown still starts
