"""`memory-pipeline hook claude-code` as a subprocess with real hook payloads (no model needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_pipeline.models import SessionEvent
from memory_pipeline.stages.transcripts import messages_since_last_compaction, parse_transcript
from memory_pipeline_tests.cli.hook_helpers import (
    BIG_SESSION,
    SESSION_ID,
    all_files,
    before_compaction,
    first_user_turns,
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


def inbox_events(ws: Path) -> list[SessionEvent]:
    return [SessionEvent.model_validate_json(p.read_text()) for p in sorted((ws / "inbox").glob("*.json"))]


def test_precompact_emits_the_window_since_the_last_compact_boundary(ws: Path):
    path = fixture_transcript(BIG_SESSION)
    done = run_hook(payload("PreCompact", path, trigger="auto"), hook_env(ws))
    assert done.returncode == 0 and done.stdout == b"", done.stderr
    [event] = inbox_events(ws)
    assert event.name == "memory/session.compaction.pending"
    window = messages_since_last_compaction(parse_transcript(path))
    assert event.data.window_start_id == window[0].id  # the first message after the compact summary
    assert event.data.message_count == len(window)
    assert event.data.tokens_before == 106_060
    snapshot = ws / event.data.transcript.path
    assert snapshot.is_file()
    checkpoint = hook_state(ws)["checkpoint"]
    assert checkpoint["reason"] == "pre-compact" and "spotter-dov" in checkpoint["current_task"]
    assert checkpoint["files_modified"][0].endswith("slice_builder.ex")  # the most recently edited file
    assert [d["decision"] for d in telemetry(ws)] == ["emitted", "checkpoint"]


def test_precompact_before_the_first_compaction_covers_the_whole_session(ws: Path, tmp_path: Path):
    path = before_compaction(tmp_path / "session.jsonl")
    done = run_hook(payload("PreCompact", path, trigger="auto"), hook_env(ws))
    assert done.returncode == 0, done.stderr
    [event] = inbox_events(ws)
    transcript = parse_transcript(path)
    assert event.data.message_count == len(transcript.messages)
    assert event.data.window_start_id == transcript.messages[0].id
    last_usage = next(m.context_tokens for m in reversed(transcript.messages) if m.context_tokens)
    assert event.data.tokens_before == last_usage > 150_000  # the session was near the 200k window


def test_session_end_under_five_user_messages_emits_an_event_to_index_not_observe(ws: Path, tmp_path: Path):
    path = first_user_turns("claude-code/tool_heavy.jsonl", 2, tmp_path / "short.jsonl")
    done = run_hook(payload("SessionEnd", path, session_id="short-session", reason="exit"), hook_env(ws))
    assert done.returncode == 0 and done.stdout == b""
    assert b"indexed, not observed: 2 user messages" in done.stderr
    [event_file] = (ws / "inbox").glob("*.json")
    assert json.loads(event_file.read_text())["data"]["userMessageCount"] == 2
    [decision] = telemetry(ws)
    assert decision["decision"] == "emitted" and decision["hook"] == "SessionEnd" and decision["observed"] is False


def test_session_end_emits_a_session_that_had_enough_turns_quickly(ws: Path):
    path = fixture_transcript("claude-code/tool_heavy.jsonl")
    done = run_hook(payload("SessionEnd", path, session_id="d6e0bada-1959-4eec-a9d2-0bfade768d8f",
                            reason="logout"), hook_env(ws))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    [event] = inbox_events(ws)
    assert event.name == "memory/session.ended" and event.data.user_message_count == 6
    assert telemetry(ws)[-1]["decision"] == "emitted"


def test_a_resumed_session_that_ends_again_emits_only_what_is_new(ws: Path, tmp_path: Path):
    session = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
    growing = tmp_path / "tool_heavy.jsonl"
    first_user_turns("claude-code/tool_heavy.jsonl", 5, growing)
    assert run_hook(payload("SessionEnd", growing, session_id=session, reason="exit"), hook_env(ws)).returncode == 0
    [first] = inbox_events(ws)
    assert first.data.window_start_id is None
    growing.write_text(fixture_transcript("claude-code/tool_heavy.jsonl").read_text(encoding="utf-8"),
                       encoding="utf-8")
    resumed = run_hook(payload("SessionEnd", growing, session_id=session, reason="exit"), hook_env(ws))
    assert resumed.returncode == 0 and resumed.stderr == b"", resumed.stderr
    second = next(e for e in inbox_events(ws) if e.data.dedupe_key != first.data.dedupe_key)
    assert second.data.window_start_id is not None
    assert second.data.message_count < first.data.message_count + second.data.message_count
    again = run_hook(payload("SessionEnd", growing, session_id=session, reason="exit"), hook_env(ws))
    assert b"no new messages" in again.stderr
    assert len(inbox_events(ws)) == 2


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


def test_huge_transcript_is_refused_by_precompact_and_tailed_by_prompt_submit(ws: Path, tmp_path: Path):
    huge = tmp_path / "huge.jsonl"
    filler = json.dumps({"type": "progress", "uuid": "p", "sessionId": SESSION_ID, "data": "x" * 900}) + "\n"
    with huge.open("w") as handle:
        handle.write(filler * 75_000)  # ~70 MB, over the 64 MB transcript limit
        handle.write(fixture_transcript(BIG_SESSION).read_text())
    done = run_hook(payload("PreCompact", huge), hook_env(ws))
    assert done.returncode == 0 and b"over the" in done.stderr
    assert all_files(ws) == []
    done = run_hook(payload("UserPromptSubmit", huge, prompt="keep going"), hook_env(ws))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert hook_state(ws)["context_tokens"] == 106_060
    wait_for(lambda: hook_state(ws)["recall_started_at"] is None)  # the detached refresh has finished


def test_prompt_submit_tracks_zones_and_fills_the_recall_cache(ws: Path):
    path = fixture_transcript(BIG_SESSION)
    env = hook_env(ws)
    done = run_hook(payload("UserPromptSubmit", path, prompt="fix the failing transcript renderer tests"), env)
    assert done.returncode == 0 and done.stdout == b"", done.stderr
    state = hook_state(ws)
    assert state["zone"] == "warm" and state["context_window"] == 200_000  # 106k of 200k = 53 %
    assert state["checkpoint"] is None
    pending = state["pending_queries"]
    assert pending and "renderer tests" in pending[-1]
    # the detached refresh runs the queries (an empty store answers with no hits) and clears the flag
    state = wait_for(lambda: (s := hook_state(ws))["recall_started_at"] is None and s)
    assert [e["query"] for e in state["recall_cache"]] == pending and state["pending_queries"] == []
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
    assert [d["decision"] for d in telemetry(ws)][-2:] == ["hot", "checkpoint"]


def test_large_context_models_and_a_bad_window_setting(ws: Path):
    path = fixture_transcript(BIG_SESSION)
    done = run_hook(payload("UserPromptSubmit", path, prompt="go on"), hook_env(ws, MEMORY_CONTEXT_WINDOW="1000000"))
    assert done.returncode == 0 and hook_state(ws)["zone"] == "cold"
    done = run_hook(payload("UserPromptSubmit", path, prompt="go on"), hook_env(ws, MEMORY_CONTEXT_WINDOW="lots"))
    assert done.returncode == 0 and b"MEMORY_CONTEXT_WINDOW" in done.stderr


def test_compaction_with_nothing_to_recover_injects_nothing(ws: Path):
    done = run_hook(payload("SessionStart", "/nonexistent/t.jsonl", session_id="lost", source="compact"), hook_env(ws))
    assert done.returncode == 0 and done.stdout == b"" and b"recovery pointer skipped" in done.stderr
    [decision] = telemetry(ws)
    assert decision["decision"] == "inject_skipped" and decision["reason"] == "nothing-to-recover"
    assert hook_state(ws, "lost")["compaction_count"] == 1  # the cooldown still starts
