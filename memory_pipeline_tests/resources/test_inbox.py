"""The inbox: accept, drop duplicates, quarantine with a reason, never block the files behind."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from memory_pipeline.errors import BadInputError
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.events import observe_skip_reason
from memory_pipeline_tests.support.paths import SAMPLES
from memory_pipeline_tests.support.doors import env_settings

SAMPLE = SAMPLES / "claude-code-redis-debugging.jsonl"


def make_old(path: Path) -> None:
    stamp = time.time() - 60
    os.utime(path, (stamp, stamp))


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path / "ws").create()


def test_good_file_is_accepted_into_its_day(ws):
    result = emit_session_event(ws, SAMPLE, trigger="shutdown", use_transcript_time=True, settings=env_settings())
    outcome = Inbox(ws).take(result.path)
    assert outcome.status == "accepted"
    assert outcome.accepted_path == ws.events_dir(result.event.day) / f"{result.event.data.dedupe_key}.json"
    assert not result.path.exists()
    assert Inbox(ws).accepted(result.event.day) == [result.event]


def test_same_dedupe_key_twice_is_a_no_op(ws):
    first = emit_session_event(ws, SAMPLE, trigger="shutdown", use_transcript_time=True, settings=env_settings())
    Inbox(ws).take(first.path)
    second = emit_session_event(ws, SAMPLE, trigger="shutdown", use_transcript_time=True, settings=env_settings())
    assert Inbox(ws).take(second.path).status == "duplicate"
    assert len(Inbox(ws).accepted(first.event.day)) == 1


def test_compaction_and_shutdown_of_one_session_are_two_events(ws):
    shutdown = emit_session_event(ws, SAMPLE, trigger="shutdown", use_transcript_time=True, settings=env_settings())
    compaction = emit_session_event(ws, SAMPLE, trigger="compaction", use_transcript_time=True, settings=env_settings())
    inbox = Inbox(ws)
    assert [inbox.take(p).status for p in inbox.pending()] == ["accepted", "accepted"]
    assert shutdown.event.data.dedupe_key != compaction.event.data.dedupe_key


def test_bad_files_are_quarantined_with_reasons_and_do_not_block_others(ws):
    inbox = Inbox(ws)
    bad = {
        "a-malformed.json": b"{not json",
        "b-binary.json": bytes(range(256)) * 4,
        "c-version.json": json.dumps({"name": "memory/session.ended", "data": {"schemaVersion": 9}}).encode(),
        "d-traversal.json": json.dumps({"name": "memory/session.ended",
                                        "data": {"schemaVersion": 1, "sessionId": "../../x"}}).encode(),
    }
    for name, raw in bad.items():
        (ws.inbox / name).write_bytes(raw)
        make_old(ws.inbox / name)
    good = emit_session_event(ws, SAMPLE, trigger="shutdown", use_transcript_time=True, settings=env_settings())
    outcomes = {o.path.name: o for o in (inbox.take(p) for p in inbox.pending())}
    assert outcomes[good.path.name].status == "accepted"
    for name in bad:
        assert outcomes[name].status == "quarantined", name
        reason = json.loads((ws.quarantine / f"{name}.reason.json").read_text())["reason"]
        assert reason and "\n" not in reason
    reasons = {e.file: e.reason for e in inbox.quarantined()}
    assert "not valid JSON" in reasons["a-malformed.json"]
    assert "not UTF-8" in reasons["b-binary.json"]
    assert "schemaVersion 9" in reasons["c-version.json"]
    assert "unsafe sessionId" in reasons["d-traversal.json"]
    assert inbox.pending() == []


def test_half_written_file_waits_then_is_quarantined(ws):
    inbox = Inbox(ws)
    partial = ws.inbox / "partial.json"
    partial.write_text('{"name": "memory/session.ended", "data": {"sessionId": "s', encoding="utf-8")
    assert inbox.take(partial).status == "waiting"
    assert partial.exists()
    make_old(partial)
    assert inbox.take(partial).status == "quarantined"


def test_temp_files_are_not_events(ws):
    (ws.inbox / ".tmp-event.json").write_text("{", encoding="utf-8")
    (ws.inbox / "notes.txt").write_text("x", encoding="utf-8")
    assert Inbox(ws).pending() == []


def test_transcript_reference_outside_the_workspace_is_refused(ws):
    result = emit_session_event(ws, SAMPLE, trigger="shutdown", use_transcript_time=True, settings=env_settings())
    Inbox(ws).take(result.path)
    event = result.event.model_copy(deep=True)
    event.data.transcript.path = "../../etc/passwd"
    with pytest.raises(BadInputError, match="escapes the workspace"):
        Inbox(ws).load_transcript(event)


def test_snapshot_is_redacted_and_user_only(ws):
    result = emit_session_event(ws, SAMPLE, trigger="shutdown", use_transcript_time=True, settings=env_settings())
    snapshot = ws.root / result.event.data.transcript.path
    text = snapshot.read_text(encoding="utf-8")
    assert "sk-ant-api03" in SAMPLE.read_text(encoding="utf-8")
    assert "sk-ant-api03" not in text and "hunter2" not in text
    assert "[REDACTED:" in text
    assert snapshot.stat().st_mode & 0o777 == 0o600
    assert ws.transcripts.stat().st_mode & 0o777 == 0o700


def test_short_sessions_are_emitted_to_be_indexed_but_not_observed(ws, tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("User: hi\n\nAssistant: hello\n", encoding="utf-8")
    result = emit_session_event(ws, short, trigger="shutdown", settings=env_settings())
    assert result.path is not None and observe_skip_reason(result.event).startswith("indexed, not observed: 1")
    compaction = emit_session_event(ws, short, trigger="compaction", settings=env_settings())
    assert compaction.path is not None and observe_skip_reason(compaction.event) is None


def test_missing_and_binary_transcripts_are_bad_input(ws, tmp_path):
    with pytest.raises(BadInputError, match="not found"):
        emit_session_event(ws, tmp_path / "nope.jsonl", trigger="shutdown", settings=env_settings())
    binary = tmp_path / "blob.jsonl"
    binary.write_bytes(bytes(range(256)) * 100)
    with pytest.raises(BadInputError):
        emit_session_event(ws, binary, trigger="shutdown", settings=env_settings())


def test_compaction_window_starts_after_the_last_compaction(ws):
    result = emit_session_event(ws, SAMPLE, trigger="compaction", window="since-compaction",
                                use_transcript_time=True, settings=env_settings())
    full = emit_session_event(ws, SAMPLE, trigger="shutdown", use_transcript_time=True, settings=env_settings())
    assert result.event.data.window_start_id is not None
    assert result.event.data.message_count < full.event.data.message_count
    Inbox(ws).take(result.path)
    window = Inbox(ws).load_transcript(result.event)
    assert window.messages[0].id == result.event.data.window_start_id
    assert len(window.messages) == result.event.data.message_count
