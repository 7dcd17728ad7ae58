"""The inbox sensor: one run request per day for its new events (run_key = the dedupeKey of a lone event,
derived from the set of keys for several), cursor persisted."""

from __future__ import annotations

import json
import os
import time

import dagster as dg
import pytest

from memory_pipeline.config import Settings
from memory_pipeline.defs.resources import WorkspaceResource
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline_tests.support.dagster_defs import sensor
from memory_pipeline_tests.support.paths import SAMPLES
from memory_pipeline_tests.support.doors import env_settings

pytestmark = pytest.mark.slow  # the sensor context, as a context manager, opens a Dagster instance


def evaluate(instance, cursor=None):
    resources = {"workspace": WorkspaceResource(settings=Settings.from_env())}
    with dg.build_sensor_context(instance=instance, cursor=cursor, resources=resources) as context:
        result = sensor("inbox_sensor")(context)
        return (result.run_requests if isinstance(result, dg.SensorResult) else result), context.cursor


def test_new_events_request_one_run_per_day(workspace):
    emitted = [emit_session_event(workspace, p, trigger="shutdown", use_transcript_time=True, settings=env_settings())
               for p in sorted(SAMPLES.glob("*.jsonl"))]
    by_day: dict[str, list[str]] = {}
    for e in emitted:
        by_day.setdefault(e.event.day, []).append(e.event.data.dedupe_key)
    assert sorted(len(keys) for keys in by_day.values()) == [1, 2]  # codex and pi share 2026-11-21
    bad = workspace.inbox / "broken.json"
    bad.write_text("{", encoding="utf-8")
    os.utime(bad, (time.time() - 60, time.time() - 60))
    with dg.instance_for_test() as instance:
        requests, cursor = evaluate(instance)
        assert sorted(r.partition_key for r in requests) == sorted(by_day)
        for request in requests:
            keys = by_day[request.partition_key]
            assert request.tags["memory/events"] == str(len(keys))
            assert request.tags["memory/trigger"] == "shutdown"
            if len(keys) == 1:
                assert request.run_key == keys[0]
            else:
                assert request.run_key not in keys and request.run_key.startswith(request.partition_key)
                assert request.tags["memory/session"] == "2 sessions"
        reason = json.loads((workspace.quarantine / "broken.json.reason.json").read_text())["reason"]
        assert "not valid JSON" in reason
        again, same_cursor = evaluate(instance, cursor)
        assert isinstance(again, dg.SkipReason)
        assert same_cursor == cursor
        later = emit_session_event(workspace, SAMPLES / "claude-code-redis-debugging.jsonl", trigger="compaction",
                                   use_transcript_time=True, settings=env_settings())
        third, _ = evaluate(instance, cursor)
        assert [r.run_key for r in third] == [later.event.data.dedupe_key]


def test_two_events_of_one_day_in_one_tick_are_one_run_request(workspace):
    from datetime import datetime, timezone

    when = datetime(2026, 11, 20, 12, tzinfo=timezone.utc)
    first = emit_session_event(workspace, SAMPLES / "codex-ci-fix.jsonl", trigger="shutdown", captured_at=when, settings=env_settings())
    second = emit_session_event(workspace, SAMPLES / "pi-api-refactor.jsonl", trigger="compaction", captured_at=when, settings=env_settings())
    with dg.instance_for_test() as instance:
        requests, _ = evaluate(instance)
    assert len(requests) == 1
    request = requests[0]
    assert request.partition_key == first.event.day == second.event.day
    assert request.tags["memory/trigger"] == "compaction,shutdown"
    assert request.tags["memory/events"] == "2"
    keys = sorted([first.event.data.dedupe_key, second.event.data.dedupe_key])
    from memory_pipeline.flows.intake.inbox import DayBatch

    swapped = DayBatch(request.partition_key, (second.event, first.event))
    assert request.run_key == swapped.run_key  # the same set of events, the same key, in any order
    assert request.run_key not in keys


def test_events_outside_the_partitions_are_quarantined(workspace):
    from datetime import datetime, timezone

    emit_session_event(workspace, SAMPLES / "codex-ci-fix.jsonl", trigger="shutdown",
                       captured_at=datetime(2019, 5, 1, tzinfo=timezone.utc), settings=env_settings())
    with dg.instance_for_test() as instance:
        result, _ = evaluate(instance)
    assert isinstance(result, dg.SkipReason)
    reasons = [json.loads(p.read_text())["reason"] for p in workspace.quarantine.glob("*.reason.json")]
    assert any("outside the daily partitions" in r for r in reasons)


def test_a_lost_tick_is_recovered_from_accepted_events(workspace):
    """Files accepted by a tick that then failed are still requested by the next tick."""
    from memory_pipeline.flows.intake.inbox import take_inbox

    emitted = emit_session_event(workspace, SAMPLES / "pi-api-refactor.jsonl", trigger="shutdown",
                                 use_transcript_time=True, settings=env_settings())
    take_inbox(workspace, settings=env_settings())  # accepted, but no run requested yet
    with dg.instance_for_test() as instance:
        requests, _ = evaluate(instance)
    assert [r.run_key for r in requests] == [emitted.event.data.dedupe_key]
