"""Whose words a question asks about, and the ranking's preference for that speaker's turns."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.recall.rank import DAY_SECONDS, Fused, RankOptions, rank
from memory_pipeline.stages.recall.speaker import asked_about, named_speaker, opening_name, said_by_other

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


DIALOGUE = ["Caroline: I went to the support group.", "Melanie: I signed up for a pottery class.",
            "Caroline: The parade was great.", "Melanie: We went camping.", "Caroline: Thanks!",
            "Melanie: Painting relaxes me.", "Note: the meeting moved."]


@pytest.mark.parametrize("text, name", [
    ("Caroline: I went to the support group.", "Caroline"),
    ("Mary Jane: hello there", "Mary Jane"),
    ("caroline: lower case is no name", None),
    ("Redis pool: max_connections 64 (we raised it)", None),  # a second word in lower case
    ("We raised the pool: 10 to 64", None),
    ("Caroline:no space after the colon", None),
])
def test_a_turn_opens_with_its_speakers_name(text, name):
    assert opening_name(text) == name


@pytest.mark.parametrize("query, speaker", [
    ("What did Melanie paint recently?", "Melanie"),
    ("Where did Caroline move from 4 years ago?", "Caroline"),
    ("What did Melanie tell Caroline about camping?", None),  # both named: either's words
    ("What did the Note say?", None),  # a label opening one turn is no speaker
    ("Which pottery class?", None),  # nobody named
])
def test_a_question_naming_one_speaker_of_a_dialogue_asks_about_that_ones_words(query, speaker):
    assert named_speaker(query, DIALOGUE) == speaker


def test_one_speaker_only_is_no_dialogue():
    monologue = ["Caroline: one.", "Caroline: two.", "Caroline: three.", "Melanie: four."]
    assert named_speaker("What did Caroline say?", monologue) is None  # Melanie opens too few turns
    assert named_speaker("What did Caroline say?", monologue + ["Melanie: five.", "Melanie: six."]) == "Caroline"


def test_a_turn_is_said_by_another_speaker_by_role_or_by_name():
    melanie = {"tier": "messages", "role": "assistant", "message": "Melanie: We went camping."}
    caroline = {"tier": "messages", "role": "user", "message": "Caroline: The parade was great."}
    observation = {"tier": "observations", "text": "Melanie went camping."}
    assert said_by_other(caroline, "Melanie") and not said_by_other(melanie, "Melanie")
    assert not said_by_other(observation, "Melanie") and not said_by_other(observation, "user")
    assert said_by_other(melanie, "user") and not said_by_other(caroline, "user")
    assert not said_by_other({"tier": "messages", "role": "user", "message": "no name here"}, "Melanie")
