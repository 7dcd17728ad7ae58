"""Comparison questions split into the items they name; session-level evidence."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.recall.parts import query_parts, with_part
from memory_pipeline.stages.recall.rank import DAY_SECONDS, Fused, RankOptions, rank
from memory_pipeline.stages.recall.sessions import session_terms

NOW = 1_800_000_000.0


@pytest.mark.parametrize("query, parts", [
    ("Which event happened first, the meeting with Rachel or the pride parade?",
     ["meeting with Rachel", "pride parade"]),
    ("Who did I meet first, Mark and Sarah or Tom?", ["Mark and Sarah", "Tom"]),
    ("How many days passed between the day I planted the tomatoes and the day I picked them?",
     ["day I planted the tomatoes", "day I picked them"]),
    ("How many days passed between finishing 'The Nightingale' and starting 'The Hitchhiker's Guide to "
     "the Galaxy'?", ["The Nightingale", "The Hitchhiker's Guide to the Galaxy"]),
    ('Did I read "Dune" before "Emma" or after?', ["Dune", "Emma"]),
    ("How many days before my best friend's birthday party did I order her gift?",
     ["best friend's birthday party", "order her gift"]),
    ("How many weeks had passed since I started taking ukulele lessons when I decided to sell my guitar?",
     ["I started taking ukulele lessons", "I decided to sell my guitar"]),  # "had passed" names no event
])
def test_a_comparison_question_names_its_items(query, parts):
    assert query_parts(query) == parts


@pytest.mark.parametrize("query", [
    "What degree did I graduate with?",
    "Where did I meet Sophia's brother?",  # an apostrophe is not a quote
    "Should I use tabs or spaces?",  # "or" without a list before it
    "What did I say about 'Dune'?",  # one quoted title compares nothing
    "How many days did I spend in Tokyo?",  # a duration of one event
])
def test_other_questions_have_no_parts(query):
    assert query_parts(query) == []


def test_an_item_candidate_joins_and_a_known_one_keeps_its_better_score():
    fused = {"a": Fused(0.9, dense_rank=1, sparse_rank=2), "b": Fused(0.2, dense_rank=5)}
    part = {"b": Fused(0.6, sparse_rank=1), "c": Fused(0.3, sparse_rank=2), "a": Fused(0.5)}
    merged = with_part(fused, part)
    assert {pid: round(item.score, 3) for pid, item in merged.items()} == {"a": 0.9, "b": 0.6, "c": 0.3}
    assert merged["b"].dense_rank == 5  # the whole question's ranks are kept for `why`
    assert fused["b"].score == 0.2  # the input is not changed


def test_a_session_matching_in_several_places_lifts_its_units():
    scores = {"s1-a": 0.8, "s1-b": 0.7, "s2-a": 0.8}
    session_of = {"s1-a": "s1", "s1-b": "s1", "s2-a": "s2", "x": ""}
    terms = session_terms(scores | {"x": 0.9}, session_of, weight=0.1, top=2)
    assert terms["s1-a"] == pytest.approx(0.1) and terms["s1-b"] == pytest.approx(0.1)
    assert terms["s2-a"] == pytest.approx(0.1 * 0.4 / 0.75)  # one unit: half its score, over the best's 0.75
    assert "x" not in terms  # no session, no term
    assert session_terms(scores, session_of, weight=0.0, top=2) == {}


def _message(text: str, session: str) -> dict:
    return {"tier": "messages", "text": text, "message": text, "role": "user", "date": "2026-11-01",
            "session_id": session, "source_message_ids": [text], "created_ts": NOW - 400 * DAY_SECONDS}


def test_rank_breaks_a_tie_for_the_session_with_more_evidence():
    payloads = {"lone": _message("lone tie", "s2"), "tie": _message("tie here", "s1"),
                "near": _message("near it", "s1")}
    fused = {"lone": Fused(0.8), "tie": Fused(0.8), "near": Fused(0.6)}
    options = RankOptions(now_ts=NOW, recency_weight=0.0)
    hits = rank(payloads, fused, options)
    assert [h.id for h in hits] == ["tie", "lone", "near"]
    assert hits[0].why["session"] == pytest.approx(0.1)
    assert hits[1].why["session"] == pytest.approx(0.1 * 0.4 / 0.7, abs=1e-4)  # `why` keeps 4 decimals
    without = rank(payloads, fused, RankOptions(now_ts=NOW, recency_weight=0.0, session_weight=0.0))
    assert [h.id for h in without] == ["lone", "tie", "near"]  # ids break the tie alphabetically
