"""The LoCoMo harness on a one-session slice: transcripts parse back with dialog ids; scoring math."""

from __future__ import annotations

from dataclasses import replace

import pytest

from benchmarks.locomo import evidence_ids, load_conversations, parse_session_date, session_jsonl
from benchmarks.locomo_eval import Scores
from memory_pipeline.models import MemorySource, RecallHit
from memory_pipeline.stages.index.message_docs import message_documents
from memory_pipeline.stages.transcripts.claude_code import parse_claude_code
from memory_pipeline_tests.support.paths import locomo_data


@pytest.fixture(scope="module")
def conversation():
    return load_conversations(locomo_data(), limit_sessions=1)[0]


def test_session_becomes_a_claude_code_transcript_with_dialog_ids(conversation):
    session = conversation.sessions[0]
    transcript = parse_claude_code(session_jsonl(conversation, session))
    assert [m.id for m in transcript.messages] == [t["dia_id"] for t in session.turns]
    first = transcript.messages[0]
    assert first.role == "user" and first.text.startswith(f"{conversation.speaker_a}: ")
    assert {m.role for m in transcript.messages} == {"user", "assistant"}
    assert first.timestamp == session.started
    docs = message_documents(transcript, day=session.started.date().isoformat(), session_id="s1")
    assert [d.payload["source_message_ids"][0] for d in docs] == [t["dia_id"] for t in session.turns]
    kept = {t["dia_id"] for t in session.turns}
    assert conversation.questions and all(set(evidence_ids(q)) <= kept for q in conversation.questions)


def test_dates_and_evidence_parsing():
    assert parse_session_date("1:56 pm on 8 May, 2023").isoformat() == "2023-05-08T13:56:00+00:00"
    assert evidence_ids({"evidence": ["D8:6; D9:17", "D1:3", "D1:3"]}) == ["D8:6", "D9:17", "D1:3"]


def test_scores_cover_evidence_and_refuse_credit_to_wide_hits():
    def hit(*sources: str) -> RecallHit:
        return RecallHit(id="x", tier="messages", text="t", score=1.0, date="d", session_id="s",
                         source_message_ids=list(sources))

    scores = Scores()
    hits = [hit("D1:1"), hit(*[f"D2:{i}" for i in range(8)])] + [hit("D9:9")] * 3 + [hit("D1:2")]
    scores.add(["D1:1", "D1:2", "D2:3"], hits, max_sources=5)
    assert scores.recall5 == [pytest.approx(1 / 3)] and scores.recall10 == [pytest.approx(2 / 3)]
    assert scores.hit5 == [1.0]
    loose = Scores()
    loose.add(["D1:1", "D1:2", "D2:3"], hits, max_sources=None)
    assert loose.recall5 == [pytest.approx(2 / 3)]
    assert scores.summary()["sources_per_hit"] == pytest.approx(13 / 6, abs=1e-3)


def test_import_harness_moves_a_conversation_into_the_past_months_by_whole_years(conversation):
    from datetime import datetime, timezone

    from benchmarks.locomo_import import moved_to_recent

    today = datetime(2026, 11, 23, tzinfo=timezone.utc)
    first = conversation.sessions[0].started
    moved = moved_to_recent(conversation, today)
    years = moved.sessions[0].started.year - first.year
    assert years > 0 and moved.last_date < today
    assert (moved.sessions[0].started.month, moved.sessions[0].started.day) == (first.month, first.day)
    question = {"question": "What happened in May 2023?", "evidence": ["D1:1"], "category": 2}
    shifted = moved_to_recent(replace(conversation, questions=[question]), today)
    assert shifted.questions[0]["question"] == f"What happened in May {2023 + shifted.year_shift}?"


def test_a_hit_covers_the_messages_its_sources_cite():
    """The same words said in two sessions are one hit with both sources: it cites both messages; a
    hit whose sources cite more than the cap gets no credit, as one citing them itself."""
    twice = RecallHit(id="x", tier="messages", text="t", score=1.0, date="d", session_id="s1",
                      source_message_ids=["D1:1"], sources=[MemorySource(session_id="s1", message_ids=["D1:1"]),
                                                           MemorySource(session_id="s4", message_ids=["D4:2"])])
    wide = RecallHit(id="y", tier="observations", text="t", score=1.0, date="d", session_id="s2",
                     source_message_ids=["D2:1"], sources=[MemorySource(session_id=f"s{n}", message_ids=[f"D{n}:5"])
                                                           for n in range(6)])
    scores = Scores()
    scores.add(["D4:2", "D3:5"], [twice, wide], max_sources=5)
    assert scores.recall5 == [pytest.approx(1 / 2)]
    assert scores.summary()["sources_per_hit"] == pytest.approx((2 + 7) / 2)
