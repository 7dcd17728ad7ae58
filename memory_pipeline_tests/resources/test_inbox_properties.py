"""Event files, mutated every way an agent or a disk can break them, through `Inbox.take`:
each is accepted (then its transcript loads or fails with BadInputError) or quarantined with
a reason file; `take` never raises."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_pipeline.errors import BadInputError
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.stages.test_transcripts_mutations import JSON_VALUES, _set_somewhere, deep
from memory_pipeline_tests.support.paths import SAMPLES
from memory_pipeline_tests.support.doors import env_settings

FIELDS = ["name", "data", "sessionId", "dedupeKey", "trigger", "messageCount", "capturedAt", "schemaVersion",
          "transcript", "messages", "filesRead", "windowStartId"]


@st.composite
def broken_events(draw, original: bytes) -> bytes:
    kind = draw(st.sampled_from(["truncate", "wrong-type", "field", "invalid-utf8", "deep", "huge", "path"]))
    if kind == "truncate":
        return original[: draw(st.integers(0, len(original) - 1))]
    if kind == "invalid-utf8":
        cut = draw(st.integers(0, len(original)))
        return original[:cut] + draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\x80"])) + original[cut:]
    document = json.loads(original)
    if kind == "deep":
        return deep(draw(st.sampled_from([100, 10_000, 300_000]))).encode()
    if kind == "field":
        field = draw(st.sampled_from(FIELDS))
        target = document if field in ("name", "data") else document["data"]
        target[field] = draw(JSON_VALUES)
    elif kind == "huge":
        document["data"][draw(st.sampled_from(["sessionName", "messages", "sessionId"]))] = "x" * draw(
            st.sampled_from([10_000, 3_000_000]))
    elif kind == "path":
        document["data"]["transcript"]["path"] = draw(st.sampled_from(
            ["../../../etc/passwd", "/etc/passwd", "transcripts/../../outside.jsonl", "transcripts/\x00x", ""]))
    else:
        _set_somewhere(document, draw(JSON_VALUES), draw(st.integers(0, 10_000)))
    return json.dumps(document).encode()


@pytest.fixture
def emitted(tmp_path: Path) -> tuple[Workspace, bytes]:
    ws = Workspace(tmp_path / "ws").create()
    result = emit_session_event(ws, SAMPLES / "codex-ci-fix.jsonl", trigger="shutdown",
                                captured_at=datetime(2026, 11, 21, 9, tzinfo=timezone.utc), settings=env_settings())
    raw = result.path.read_bytes()
    result.path.unlink()
    return ws, raw


def test_broken_event_files_are_accepted_or_quarantined_with_a_reason(emitted) -> None:
    ws, original = emitted
    inbox = Inbox(ws, grace_seconds=0)
    counter = iter(range(10**6))

    @settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=broken_events(original))
    def check(data: bytes) -> None:
        path = ws.inbox / f"event-{next(counter)}.json"
        path.write_bytes(data)
        outcome = inbox.take(path, valid_day=lambda day: "2023-01-01" <= day <= "2026-12-31")
        assert outcome.status in ("accepted", "duplicate", "quarantined")
        assert not path.exists()
        if outcome.status == "quarantined":
            assert outcome.reason
            reason = json.loads((ws.quarantine / f"{path.name}.reason.json").read_text())
            assert reason["reason"] == outcome.reason and reason["file"] == path.name
        elif outcome.status == "accepted":
            assert outcome.accepted_path.parent.parent == ws.root / "events"
            try:
                inbox.load_transcript(outcome.event)
            except BadInputError as exc:
                assert str(exc)
            outcome.accepted_path.unlink()  # so the next mutant of the same event is taken afresh

    check()
