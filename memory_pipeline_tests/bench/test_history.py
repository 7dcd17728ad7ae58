"""The generated three-year history: deterministic, evidence spread over the years, named times that
point at their evidence, transcripts the importer reads."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

from benchmarks.history import generate, session_jsonl
from benchmarks.recall_by_age import bucket
from memory_pipeline.stages.recall.when import named_window
from memory_pipeline.stages.transcripts.claude_code import parse_claude_code

TODAY = datetime(2026, 11, 23, tzinfo=UTC)


def test_same_seed_same_history_and_evidence_spread_evenly():
    sessions, questions = generate(TODAY, sessions=540, seed=3)
    again, _ = generate(TODAY, sessions=540, seed=3)
    assert [s.turns for s in sessions] == [s.turns for s in again]
    assert len(sessions) == 540 and len(questions) >= 500
    assert TODAY - timedelta(days=3 * 365 + 1) <= sessions[0].started and sessions[-1].started < TODAY
    ages = Counter(bucket((TODAY - q.evidence_time).days) for q in questions)
    per_half_year = {name: count / span for name, count, span in (
        ("< 6 months", ages["< 6 months"], 1), ("6-12 months", ages["6-12 months"], 1),
        ("12-24 months", ages["12-24 months"], 2), ("> 24 months", ages["> 24 months"], 2))}
    assert max(per_half_year.values()) - min(per_half_year.values()) <= 0.1 * max(per_half_year.values())
    evidence = {turn[0]: turn[2] for s in sessions for turn in s.turns}
    assert all(q.evidence in evidence for q in questions)


def test_named_times_point_at_their_evidence():
    _, questions = generate(TODAY, sessions=540, seed=3)
    named = [q for q in questions if q.names_time]
    assert len(named) >= 50
    for q in named:
        window = named_window(q.question, TODAY)
        assert window is not None, q.question
        assert window.start <= q.evidence_time.date() <= window.end, (q.question, q.evidence_time)


def test_sessions_are_claude_code_transcripts_with_enough_user_turns():
    sessions, _ = generate(TODAY, sessions=20, seed=1)
    transcript = parse_claude_code(session_jsonl(sessions[0]))
    assert [m.id for m in transcript.messages] == [t[0] for t in sessions[0].turns]
    assert transcript.user_message_count >= 5 and transcript.messages[0].timestamp == sessions[0].started
