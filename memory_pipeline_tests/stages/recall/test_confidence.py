"""Recall says when memory has nothing: the top hits' closeness in meaning against a measured threshold."""

from __future__ import annotations

from memory_pipeline.models import RecallHit
from memory_pipeline.stages.recall.confidence import MIN_ANSWER_COSINE, confidence


def hit(cosine: float | None, n: int = 0) -> RecallHit:
    why = {"dense_rank": n + 1, "dense_score": cosine} if cosine is not None else {"sparse_rank": n + 1}
    return RecallHit(id=f"h{n}", tier="messages", text="x", score=0.7, date="2026-11-20", session_id="s", why=why)


def test_hits_far_in_meaning_are_not_an_answer_and_one_close_hit_is():
    low = [hit(MIN_ANSWER_COSINE - 0.1, n) for n in range(10)]
    assert not confidence(low).answered and confidence(low).best_cosine == round(MIN_ANSWER_COSINE - 0.1, 4)
    assert confidence(low).line().startswith("nothing in memory answers this")
    assert confidence(low).line().endswith("; the 3 nearest hits, not answers")  # a heading ends it as it needs
    assert confidence(low).line(1).endswith("; the nearest hit, not an answer")  # a small memory lists fewer
    close = [hit(MIN_ANSWER_COSINE - 0.1), hit(MIN_ANSWER_COSINE + 0.05, 1), *low[2:]]
    assert confidence(close).answered
    assert not confidence([]).answered
    assert confidence([hit(None)]).answered  # a keyword-only search: nothing to judge by
    late = [*low[:3], hit(0.9, 3)]  # a close hit further down still answers
    assert confidence(late).answered


def test_hits_between_the_two_thresholds_are_weak_matches():
    from memory_pipeline.stages.recall.confidence import STRONG_ANSWER_COSINE

    weak = [hit(STRONG_ANSWER_COSINE - 0.05, n) for n in range(10)]
    assert confidence(weak).answered and confidence(weak).level == "weak"
    assert "weak matches only" in confidence(weak).weak_line()
    assert confidence(weak).as_dict()["level"] == "weak"
    strong = [*weak[:9], hit(STRONG_ANSWER_COSINE, 9)]
    assert confidence(strong).level == "strong"
    assert confidence([hit(MIN_ANSWER_COSINE - 0.01)]).level == "none"
    assert confidence([hit(None)]).level == "weak"  # keyword matches alone: nothing says they answer
    assert "none close in meaning" in confidence([hit(None)]).weak_line()
    assert MIN_ANSWER_COSINE < STRONG_ANSWER_COSINE
