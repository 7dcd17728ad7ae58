"""Event building and validation: every bad event file gets a one-line reason."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import Message, Transcript
from memory_pipeline.stages.events import build_event, check_session_id, event_to_json, make_dedupe_key, parse_event

WHEN = datetime(2026, 11, 20, 9, 15, tzinfo=timezone.utc)


def transcript(user_messages: int = 5) -> Transcript:
    messages = [
        Message(id=f"u{i}", role="user", text=f"request {i}", timestamp=WHEN.replace(minute=i)) for i in range(user_messages)
    ]
    return Transcript(format="text", session_id="s1", messages=messages, files_modified=["a.py"])


def valid_event(**changes) -> dict:
    event = json.loads(event_to_json(build_event(transcript(), trigger="shutdown", session_id="s1",
                                                 captured_at=WHEN, messages="[09:00] [User] (m1): hi")))
    event["data"].update(changes)
    return event


def test_dedupe_key_is_deterministic_and_distinguishes_triggers():
    first = make_dedupe_key("s1", "shutdown", "2026-11-20T09:00:00+00:00")
    assert first == make_dedupe_key("s1", "shutdown", "2026-11-20T09:00:00+00:00")
    assert first != make_dedupe_key("s1", "compaction", "2026-11-20T09:00:00+00:00")
    assert len(first) == 64


def test_built_event_round_trips_with_seed_fields():
    event = build_event(transcript(), trigger="compaction", session_id="s1", captured_at=WHEN, messages="x",
                        tokens_before=1234)
    document = json.loads(event_to_json(event))
    assert document["name"] == "memory/session.compaction.pending"
    for field in ("sessionId", "dedupeKey", "trigger", "messageCount", "userMessageCount", "tokensBefore",
                  "filesRead", "filesModified", "capturedAt", "schemaVersion"):
        assert field in document["data"], field
    assert document["data"]["userMessageCount"] == 5
    assert parse_event(event_to_json(event).encode()) == event
    assert event.day == "2026-11-20"


def test_day_follows_the_offset_the_event_was_written_with():
    late_evening = datetime.fromisoformat("2026-11-20T23:30:00-08:00")
    event = build_event(transcript(), trigger="shutdown", session_id="s1", captured_at=late_evening, messages="x")
    assert event.day == "2026-11-20"


@pytest.mark.parametrize("session_id", ["../etc", "a/b", "..", ".hidden", "", "x" * 129, "a\nb", "a b", "a\\b"])
def test_unsafe_session_ids_are_refused(session_id):
    with pytest.raises(BadInputError, match="unsafe sessionId"):
        check_session_id(session_id)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"", "empty"),
        (b"{\"name\": \"memory/session.ended\", \"da", "not valid JSON"),
        (b"\xff\xfe\x00binary", "not UTF-8"),
        (b"[1, 2]", "JSON object"),
        (b"[" * 100000 + b"]" * 100000, "nested too deeply|not valid JSON"),
        (json.dumps({"name": "memory/observe", "data": {}}).encode(), "unknown event name"),
        (json.dumps({"name": "memory/session.ended"}).encode(), "no 'data'"),
    ],
)
def test_malformed_files_get_a_clear_reason(raw, reason):
    with pytest.raises(BadInputError, match=reason):
        parse_event(raw)


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"schemaVersion": 2}, "unsupported schemaVersion 2"),
        ({"sessionId": "../../etc/passwd"}, "unsafe sessionId"),
        ({"messageCount": "many"}, "messageCount"),
        ({"trigger": "compaction"}, "does not match"),
        ({"capturedAt": "2026-11-20T09:15:00"}, "time zone"),
        ({"dedupeKey": "../x"}, "dedupeKey"),
        ({"messages": None}, "no transcript"),
        ({"filesRead": {"deep": [[[[1]]]]}}, "filesRead"),
    ],
)
def test_invalid_fields_get_a_clear_reason(changes, reason):
    with pytest.raises(BadInputError, match=reason):
        parse_event(json.dumps(valid_event(**changes)).encode())


def test_deeply_nested_extra_field_is_refused():
    nested: object = 1
    for _ in range(80):
        nested = [nested]
    with pytest.raises(BadInputError, match="nested too deeply"):
        parse_event(json.dumps(valid_event(extra=nested)).encode())
