"""Whose words a question asks about, and the ranking's preference for that speaker's turns."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.recall.rank import DAY_SECONDS, Fused, RankOptions, rank
from memory_pipeline.stages.recall.speaker import asked_about

NOW = 1_800_000_000.0


@pytest.mark.parametrize("query, speaker", [
    ("How many doctor's appointments did I go to in March?", "user"),
    ("What degree did I graduate with?", "user"),
    ("Where is my passport?", "user"),
    ("Can you suggest a hotel for my upcoming trip to Miami?", "user"),  # a request now, about the user
    ("Can you remind me of the hostel you recommended last time?", "assistant"),
    ("I'm going back to our previous chat about the temple. How many mummies are there?", "assistant"),
    ("How long did you say I should leave it on?", "assistant"),
    ("What did you tell me about the Redis port?", "assistant"),
    ("How did we fix the flaky test?", None),  # both speakers did it
    ("What did Caroline research?", None),  # neither speaker's voice
    ("redis port setting", None),
])
def test_a_question_names_the_speaker_whose_words_hold_its_answer(query, speaker):
    assert asked_about(query) == speaker


def _turn(role: str) -> dict:
    return {"tier": "messages", "text": f"{role} words", "message": f"{role} words", "role": role,
            "date": "2026-11-01", "session_id": f"s-{role}", "source_message_ids": [role],
            "created_ts": NOW - 400 * DAY_SECONDS}


def test_the_speaker_asked_about_outranks_a_slightly_better_turn_of_the_other():
    payloads = {"u": _turn("user"), "a": _turn("assistant")}
    fused = {"u": Fused(0.8), "a": Fused(0.9)}
    options = RankOptions(now_ts=NOW, recency_weight=0.0, session_weight=0.0)
    assert [h.id for h in rank(payloads, fused, options)] == ["a", "u"]  # no speaker named: the better match
    assert [h.id for h in rank(payloads, fused, options, speaker="user")] == ["u", "a"]
    assert [h.id for h in rank(payloads, fused, options, speaker="assistant")] == ["a", "u"]
    clearly = {"u": Fused(0.5), "a": Fused(0.9)}  # a clearly better match keeps its place
    assert [h.id for h in rank(payloads, clearly, options, speaker="user")] == ["a", "u"]
    assert [h.id for h in rank(payloads, fused, RankOptions(now_ts=NOW, recency_weight=0.0, session_weight=0.0,
                                                            speaker_factor=1.0), speaker="user")] == ["a", "u"]
