"""One statement said twice in other words, and what is another statement (stages/restatement.py)."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.restatement import says_again


@pytest.mark.parametrize(("first", "second"), [
    ("Finding: The SQLite database is NOT required for session functionality!",
     "Finding: The SQLite database (`__store.db`) is NOT required."),  # a detail named, words dropped
    ('User stated: "Keep the changelog entries short and in the past tense"',
     "Keep the changelog entries short, in the past tense."),  # the frame left out
])
def test_the_same_statement_in_other_words(first, second):
    assert says_again(first, second) and says_again(second, first)


@pytest.mark.parametrize(("first", "second"), [
    ("I prefer short answers in all my projects", "I prefer answers in Klingon in all my projects"),  # one word
    ("The SQLite database is NOT required for sessions", "The SQLite database is required for sessions"),
    ("The staging Redis listens on port 6379", "The staging Redis listens on port 6380"),
    ("Use uv", "Use uv for everything"),  # too few words to tell
    ("The worker pool runs 4 threads for the search index", "The worker pool runs 8 threads"),
])
def test_another_statement(first, second):
    assert not says_again(first, second) and not says_again(second, first)
