"""Echo/fizzle judging, pure: specific tokens, bounded scores, the labelled set (lexical part)."""

from __future__ import annotations

import json

from memory_pipeline.stages.feedback.echo import (
    Injected,
    answer_passages,
    answer_tokens,
    judge,
    next_score,
    specific_tokens,
)
from memory_pipeline_tests.support.paths import FIXTURES


def test_specific_tokens_keep_identifiers_paths_and_rare_words():
    tokens = specific_tokens("Run `npm run check` before committing src/app.ts; the pool holds 128 clients")
    assert {"npm run check", "src/app.ts", "128", "committing", "clients", "pool"} <= tokens
    assert not {"the", "before", "run"} & tokens


def test_scores_move_by_the_seed_steps_and_stay_bounded():
    assert next_score(0.0, True) == 0.1 and next_score(0.0, False) == -0.05
    assert next_score(0.45, True) == 0.5 and next_score(0.5, True) == 0.5
    assert next_score(-0.5, False) == -0.5


def test_a_long_answer_is_judged_in_passages():
    answer = ("word " * 100 + "\n\n") * 30
    assert len(answer_passages(answer)) <= 50 and all(len(p) <= 400 for p in answer_passages(answer))


def test_lexical_judging_on_the_labelled_set_never_calls_an_unrelated_answer_used():
    cases = json.loads((FIXTURES / "labels" / "echo.json").read_text())["cases"]
    verdicts = [judge(Injected("m", c["memory"]), answer_tokens(c["answer"]), cosine=0.0).used for c in cases]
    labels = [c["used"] for c in cases]
    false_used = sum(v and not label for v, label in zip(verdicts, labels))
    found = sum(v and label for v, label in zip(verdicts, labels))
    assert false_used == 0
    assert found >= sum(labels) // 2  # the rest is left to embedding similarity
