"""The question's adjacent words found in order in a candidate, and "my X" said by the user."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.index.sparse import tokenize
from memory_pipeline.stages.recall.proximity import owned_terms, pair_share, query_pairs, rescored
from memory_pipeline.stages.recall.rank import Fused


def test_the_question_pairs_are_its_adjacent_content_words_in_order():
    assert query_pairs(tokenize("What speed is my new internet plan?")) == [
        ("speed", "new"), ("new", "internet"), ("internet", "plan")]
    assert query_pairs(tokenize("redis")) == []
    assert len(query_pairs([f"w{i}" for i in range(500)])) == 32  # a pasted log: its first pairs only


@pytest.mark.parametrize("text, share", [
    ("I switched to a new internet plan last week", 2 / 2),
    ("a plan on the internet, new", 0 / 2),  # the words, not in the question's order
    ("new laptop, phone and tablet; internet slow every day this week; the plan", 0 / 2),  # far apart
    ("New Internet plans!", 2 / 2),  # any case, any ending of the stem
    ("renew the internet, explain", 0 / 2),  # inside a word is not a word  # out of the window
    ("My new fibre internet plan", 2 / 2),  # one word between is within the window
])
def test_a_pair_counts_in_order_within_a_short_window(text, share):
    pairs = query_pairs(tokenize("new internet plan"))
    assert pair_share(pairs, text) == pytest.approx(share)


def test_owned_terms_are_the_words_after_my():
    assert owned_terms("Where did I attend my cousin's wedding?") == set(tokenize("cousin wedding"))
    assert owned_terms("What speed is my new internet plan?") == {"new", "internet", "plan"}
    assert owned_terms("What did Caroline research?") == set()


def test_rescoring_lifts_the_phrase_and_the_users_own_thing():
    fused = {"phrase": Fused(0.5), "words": Fused(0.52), "theirs": Fused(0.5), "mine": Fused(0.5)}
    texts = {"phrase": ("a new internet plan at 500 Mbps", "assistant"),
             "words": ("internet speed: a new router, a better plan", "assistant"),
             "theirs": ("your cousin's wedding is lovely", "assistant"),
             "mine": ("my cousin's wedding was at the Grand Ballroom", "user")}
    out = rescored(fused, texts, tokenize("my new internet plan"), "my new internet plan", 0.1, 0.0)
    assert out["phrase"].score > out["words"].score  # the words in order beat the same words apart
    assert fused["phrase"].score == 0.5  # the input is not changed
    out = rescored(fused, texts, tokenize("my cousin's wedding"), "Where was my cousin's wedding?", 0.0, 0.1)
    assert out["mine"].score == pytest.approx(0.6) and out["theirs"].score == 0.5
    assert rescored(fused, texts, tokenize("wedding"), "wedding", 0.0, 0.0) is fused  # off: untouched
