"""Observation points are dated by when things happened in the session, not when they were captured."""

from __future__ import annotations

from datetime import datetime, timezone

from memory_pipeline.models import Fact, Observation, Segment, stable_id
from memory_pipeline.stages.index.observation_docs import observation_points

F1, F2 = stable_id("f1"), stable_id("f2")


def observation(captured: datetime, facts: list[Fact]) -> Observation:
    return Observation(id="o1", dedupe_key="k1", session_id="s1", trigger="shutdown", date=captured.date().isoformat(),
                       captured_at=captured, segments=[Segment(title="t", narrative="n", facts=facts)])


def test_facts_carry_their_transcript_time_and_narratives_the_capture():
    captured = datetime(2026, 3, 4, 18, 30, tzinfo=timezone.utc)  # an import: the session's end
    facts = [Fact(id=F1, priority="high", time="09:15", text="chose keyset pagination", source_message_ids=["m1"]),
             Fact(id=F2, priority="low", text="no time given", source_message_ids=["m2"])]
    points = {p.id: p.payload for p in observation_points(observation(captured, facts))}
    assert points[F1]["created_at"] == "2026-03-04T09:15:00+00:00"
    assert points[F1]["created_ts"] == datetime(2026, 3, 4, 9, 15, tzinfo=timezone.utc).timestamp()
    assert points[F2]["created_ts"] == captured.timestamp()
    narrative = next(p for p in points.values() if p["kind"] == "narrative")
    assert narrative["created_ts"] == captured.timestamp()


def test_a_fact_from_before_midnight_is_dated_the_day_before_a_capture_after_it():
    captured = datetime(2026, 3, 5, 0, 40, tzinfo=timezone.utc)
    fact = Fact(id=F1, priority="high", time="23:50", text="late fix", source_message_ids=["m1"])
    payload = observation_points(observation(captured, [fact]))[0].payload
    assert payload["created_at"] == "2026-03-04T23:50:00+00:00"
