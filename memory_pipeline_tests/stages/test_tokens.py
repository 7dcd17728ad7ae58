"""estimate_tokens: about a quarter of the characters, rounded up."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.tokens import estimate_tokens


@pytest.mark.parametrize(("text", "tokens"), [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("x" * 400, 100)])
def test_estimate_tokens_is_a_quarter_of_the_characters_rounded_up(text, tokens):
    assert estimate_tokens(text) == tokens


def test_estimate_tokens_counts_characters_not_bytes():
    assert estimate_tokens("é" * 8) == 2
