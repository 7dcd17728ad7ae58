"""Events that point at the workspace's own files, snapshots that do not match or do not parse,
dedupe-key conflicts, and near-miss marks in REVIEW.md."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from memory_pipeline.errors import BadInputError
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.models import content_hash
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.review.review_md import decide, parse_review_md, read_mark
from memory_pipeline_tests.support.paths import SAMPLES
from memory_pipeline_tests.support.doors import env_settings

WHEN = datetime(2026, 11, 21, 16, 5, tzinfo=timezone.utc)
SAMPLE = SAMPLES / "claude-code-redis-debugging.jsonl"


@pytest.fixture
def ws(tmp_path) -> Workspace:
    return Workspace(tmp_path / "ws").create()


@pytest.mark.parametrize("inside", ["state/dagster/dagster.yaml", "state/hooks/s.json", "memory/MEMORY.md",
                                    "transcripts/x.jsonl", "inbox/a.json"])
def test_emit_refuses_the_workspaces_own_files(ws, inside):
    target = ws.root / inside
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(SAMPLE.read_text())
    with pytest.raises(BadInputError, match="inside the workspace"):
        emit_session_event(ws, target, trigger="shutdown", captured_at=WHEN, settings=env_settings())


def forged(ws: Workspace, ref_path: str, content: str | None = None, sha: str | None = None) -> str:
    """An event file whose transcript reference is rewritten; returns the quarantine reason ('' if accepted)."""
    result = emit_session_event(ws, SAMPLE, trigger="shutdown", captured_at=WHEN, settings=env_settings())
    document = json.loads(result.path.read_text())
    if content is not None:
        (ws.root / ref_path).parent.mkdir(parents=True, exist_ok=True)
        (ws.root / ref_path).write_text(content)
    document["data"]["transcript"]["path"] = ref_path
    if sha is not None:
        document["data"]["transcript"]["sha256"] = sha
    result.path.write_text(json.dumps(document))
    outcome = Inbox(ws, grace_seconds=0).take(result.path)
    return outcome.reason if outcome.status == "quarantined" else ""


def test_events_naming_the_workspace_state_are_quarantined(ws):
    yaml = "storage:\n  sqlite:\n    base_dir: x\n"
    assert "not a snapshot under transcripts/" in forged(ws, "state/dagster/dagster.yaml", yaml, content_hash(yaml))
    assert "not a snapshot under transcripts/" in forged(ws, "memory/notes.jsonl", "{}", content_hash("{}"))
    assert "escapes the workspace" in forged(ws, "../../etc/passwd")


def test_snapshots_that_do_not_match_or_do_not_parse_are_quarantined(ws):
    assert "does not match the sha256" in forged(ws, "transcripts/evil.jsonl", "tampered\n")
    garbage = "just some text\nthat is no transcript\n"
    assert "does not read as a claude-code transcript" in forged(ws, "transcripts/g.jsonl", garbage,
                                                                 content_hash(garbage))
    assert "unreadable" in forged(ws, "transcripts/missing.jsonl")


def test_the_same_dedupe_key_with_other_content_is_a_conflict(ws, tmp_path):
    source = tmp_path / "growing.jsonl"
    source.write_text(SAMPLE.read_text())
    first = emit_session_event(ws, source, trigger="shutdown", captured_at=WHEN, settings=env_settings())
    assert Inbox(ws, grace_seconds=0).take(first.path).status == "accepted"
    again = emit_session_event(ws, source, trigger="shutdown", captured_at=WHEN, settings=env_settings())
    assert Inbox(ws, grace_seconds=0).take(again.path).status == "duplicate"  # same content: dropped
    lines = SAMPLE.read_text().splitlines()
    source.write_text("\n".join(lines + lines[-4:]) + "\n")  # more messages, same first entry: same key
    grown = emit_session_event(ws, source, trigger="shutdown", captured_at=WHEN, settings=env_settings())
    assert grown.event.data.dedupe_key == first.event.data.dedupe_key
    outcome = Inbox(ws, grace_seconds=0).take(grown.path)
    assert outcome.status == "quarantined" and "dedupeKey conflict" in outcome.reason


@pytest.mark.parametrize(("mark", "meaning"), [
    ("x", "approve"), ("X", "approve"), ("x ", "approve"), (" x", "approve"), (" X ", "approve"), ("✓", "approve"),
    ("✔", "approve"), ("✅", "approve"), ("-", "reject"), (" - ", "reject"), ("~", "reject"), ("✗", "reject"),
    ("", "open"), (" ", "open"), ("  ", "open"), ("?", "unknown"), ("xx", "unknown"), ("o", "unknown"),
])
def test_checkbox_marks(mark, meaning):
    assert read_mark(mark) == meaning


def test_marks_not_understood_are_reported_and_left_pending():
    from memory_pipeline.models import Proposal

    text = ("# Pending Memory Proposals\n\n## Proposed for: Patterns\n- [x ] `p-20261121-001` a rule\n"
            "- [?] `p-20261121-002` another rule\n- [ X] `p-20261121-003` third rule\n")
    proposals = {f"p-20261121-00{n}": Proposal(id=f"p-20261121-00{n}", section="Patterns", text=t, created="2026-11-21")
                 for n, t in ((1, "a rule"), (2, "another rule"), (3, "third rule"))}
    decisions = decide(parse_review_md(text), {}, proposals)
    assert sorted(decisions.approve) == ["p-20261121-001", "p-20261121-003"]
    assert any("line 5: mark [?] not understood" in m for m in decisions.messages)


def test_an_event_that_keeps_failing_is_quarantined_after_a_few_tries(ws):
    from memory_pipeline.flows.observe import collect_sessions
    from memory_pipeline.resources.files.inbox import MAX_EVENT_ATTEMPTS

    result = emit_session_event(ws, SAMPLE, trigger="shutdown", captured_at=WHEN, settings=env_settings())
    assert Inbox(ws, grace_seconds=0).take(result.path).status == "accepted"
    (ws.root / result.event.data.transcript.path).unlink()  # the snapshot is gone: every load fails
    day = result.event.day
    for attempt in range(1, MAX_EVENT_ATTEMPTS + 1):
        [record] = collect_sessions(ws, day)
        assert record.error and ("quarantined" in record.error) == (attempt == MAX_EVENT_ATTEMPTS)
    assert collect_sessions(ws, day) == [] and Inbox(ws).accepted(day) == []
    [entry] = Inbox(ws).quarantined()
    assert f"failed {MAX_EVENT_ATTEMPTS} times" in entry.reason and "snapshot missing" in entry.reason
