"""A question's keyword terms leave out light verbs."""

from __future__ import annotations

from memory_pipeline.stages.index.sparse import tokenize
from memory_pipeline.stages.recall.terms import query_terms


def test_light_verbs_are_left_out_of_a_question_terms():
    assert query_terms("When did Caroline go to the LGBTQ support group?") == ["caroline", "lgbtq", "support", "group"]
    assert query_terms("What did Melanie make for the local church?") == ["melanie", "local", "church"]


def test_a_question_of_light_verbs_only_keeps_them():
    assert query_terms("where did it go") == tokenize("where did it go") == ["go"]
