"""A user's turn → its passages: sentence windows, which turns get them, their ids and payload."""

from __future__ import annotations

import uuid

import pytest

from memory_pipeline.models import stable_id
from memory_pipeline.stages.index.message_docs import has_keywords, keyword_counts
from memory_pipeline.stages.index.passages import (
    LONG_SENTENCE_WORDS,
    MAX_WINDOWS,
    MIN_CHARS,
    WINDOW_WORDS,
    passage_id,
    passage_points,
    turn_of,
    windows,
)

TURN, OTHER = stable_id("s1", "u1", "hash"), stable_id("s1", "u2", "hash")

STATED = ("I graduated with a degree in Business Administration, which has definitely helped me in my new "
          "role as a marketing coordinator. Do you have any advice on how to stay organized when I am "
          "juggling several campaigns at once? I keep losing track of deadlines and it stresses me out.")


def turn(text: str, role: str = "user") -> dict:
    return {"tier": "messages", "role": role, "message": text, "date": "2026-11-02", "session_id": "s1",
            "project": "shop", "scope": "project", "created_ts": 1.0, "source_message_ids": ["u1"]}


def test_windows_are_whole_sentences_that_fit_and_share_none():
    found = windows(STATED)
    assert found == [
        "I graduated with a degree in Business Administration, which has definitely helped me in my new role "
        "as a marketing coordinator.",
        "Do you have any advice on how to stay organized when I am juggling several campaigns at once? I keep "
        "losing track of deadlines and it stresses me out."]
    assert all(len(w.split()) <= WINDOW_WORDS for w in found)
    assert " ".join(found).split() == STATED.split()  # every word once, in order


def test_a_line_break_ends_a_sentence_and_a_long_sentence_is_cut():
    listed = "Rules for this repo:\n- use uv, never pip\n- tabs in the Makefile"
    assert windows(listed, width=4) == ["Rules for this repo:", "- use uv, never pip", "- tabs in the Makefile"]
    run_on = " ".join(f"w{i}" for i in range(LONG_SENTENCE_WORDS + 5))
    assert [len(w.split()) for w in windows(run_on, width=WINDOW_WORDS)] == [LONG_SENTENCE_WORDS, 5]


def test_at_most_max_windows_a_turn():
    pasted = " ".join(f"Sentence number {i} says one thing and then another thing here." for i in range(40))
    assert len(windows(pasted)) == MAX_WINDOWS


def test_only_the_users_longer_turns_get_passages():
    assert len(passage_points(TURN, turn(STATED))) == 2
    assert passage_points(TURN, turn(STATED, role="assistant")) == []
    short = "Use tabs, not spaces, in this repository's Makefile."
    assert len(short) <= MIN_CHARS and passage_points(TURN, turn(short)) == []
    assert passage_points(OTHER, turn(STATED) | {"tier": "observations"}) == []


def test_a_passage_names_its_turn_and_carries_what_filters_read():
    (first_id, text, payload), (second_id, _, _) = passage_points(TURN, turn(STATED))
    assert text.startswith("I graduated") and first_id != second_id
    assert payload == {"date": "2026-11-02", "session_id": "s1", "project": "shop", "scope": "project",
                       "created_ts": 1.0, "tier": "passages", "kind": "passage", "passage_of": TURN,
                       "priority": None, "stale": False}
    # content-derived ids: the same turn gives the same passages, another turn others
    assert passage_points(TURN, turn(STATED))[0][0] == first_id
    assert passage_points(OTHER, turn(STATED))[0][0] != first_id


def test_keyword_search_leaves_passages_out():
    _, text, payload = passage_points(TURN, turn(STATED))[0]
    assert not has_keywords(payload) and keyword_counts(payload | {"text": text}) == ({}, 0.0)
    assert has_keywords(turn(STATED)) and keyword_counts(turn(STATED) | {"text": STATED})[1] > 0


def test_a_passage_id_names_its_turn_and_no_other_point():
    ids = [passage_id(TURN, number) for number in range(MAX_WINDOWS)]
    assert len(set(ids)) == MAX_WINDOWS and TURN not in ids
    assert [turn_of(pid) for pid in ids] == [TURN] * MAX_WINDOWS
    assert turn_of(TURN) is None and turn_of(OTHER) is None and turn_of("not an id") is None
    # any spelling of an id: upper case, no hyphens, a version digit of no passage (uuid4), none in range
    assert [turn_of(pid.upper()) for pid in ids] == [TURN] * MAX_WINDOWS
    assert [turn_of(pid.replace("-", "")) for pid in ids] == [TURN] * MAX_WINDOWS
    assert turn_of(TURN.upper()) is None and turn_of(str(uuid.uuid4())) is None
    assert turn_of(ids[0][:14] + format(8 + MAX_WINDOWS, "x") + ids[0][15:]) is None
    assert passage_id(OTHER, 0) != ids[0]
    with pytest.raises(ValueError):
        passage_id(TURN, MAX_WINDOWS)
    with pytest.raises(ValueError):
        passage_id(ids[0], 0)  # a passage of a passage: not a turn's id
