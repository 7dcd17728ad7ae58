"""Snapshots grow with the new lines only, and every reader sees the same transcript as a full copy."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.flows.intake.windows import send_window
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.files.snapshots import CHAIN_FILE, snapshot_paths
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.redact import redact_jsonl
from memory_pipeline.stages.transcripts import parse_transcript
from memory_pipeline_tests.support.paths import fixture_transcript
from memory_pipeline_tests.support.doors import env_settings

SESSION = "claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


def _grow(lines: list[str], path: Path, upto: int) -> None:
    path.write_text("".join(lines[:upto]), encoding="utf-8")


def test_a_resumed_session_stores_each_line_once_and_reads_back_whole(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    lines = fixture_transcript(SESSION).read_text(encoding="utf-8").splitlines(keepends=True)
    live = tmp_path / "live" / "session.jsonl"
    live.parent.mkdir()
    inbox = Inbox(workspace)
    events = []
    for upto in (400, 800, 1200, len(lines)):
        _grow(lines, live, upto)
        result = send_window(workspace, live, session_id="s1", trigger="shutdown", format="claude-code", settings=env_settings())
        assert result.event is not None
        events.append(result.event)
        assert inbox.refuse_snapshot(result.event) is None  # the hash covers every part
        # the reader sees the redacted transcript as a full copy would show it
        full = parse_transcript(redact_jsonl("".join(lines[:upto])), format="claude-code", session_id="s1")
        parts = snapshot_paths(workspace, result.event.data.transcript)
        assert len(parts) == len(events)
        window = inbox.load_transcript(result.event)
        start = [m.id for m in full.messages].index(window.messages[0].id)
        assert window.messages == full.messages[start:]
    stored = sum(p.stat().st_size for p in (workspace.transcripts / "s1").glob("*.jsonl"))
    assert stored < live.stat().st_size * 1.05  # one copy, not four
    assert (workspace.transcripts / "s1" / CHAIN_FILE).is_file()


def test_a_rewritten_transcript_starts_a_new_chain(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    lines = fixture_transcript("claude-code/tool_heavy.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    live = tmp_path / "session.jsonl"
    _grow(lines, live, 20)
    first = send_window(workspace, live, session_id="s2", trigger="shutdown", format="claude-code", settings=env_settings()).event
    live.write_text("".join(lines[1:]), encoding="utf-8")  # not an append: the old prefix is gone
    second = send_window(workspace, live, session_id="s2", trigger="shutdown", format="claude-code", settings=env_settings()).event
    assert first.data.transcript.parts is None and second.data.transcript.parts is None
    assert Inbox(workspace).refuse_snapshot(second) is None


def test_a_line_still_being_written_is_copied_with_its_snapshot(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    text = fixture_transcript("claude-code/tool_heavy.jsonl").read_text(encoding="utf-8")
    live = tmp_path / "session.jsonl"
    live.write_text(text.rstrip("\n"), encoding="utf-8")  # no newline after the last line yet
    event = send_window(workspace, live, session_id="s3", trigger="shutdown", format="claude-code", settings=env_settings()).event
    assert not (workspace.transcripts / "s3" / CHAIN_FILE).exists()
    assert Inbox(workspace).load_transcript(event).messages == parse_transcript(live).messages
