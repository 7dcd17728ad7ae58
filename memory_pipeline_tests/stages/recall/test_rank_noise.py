"""What recall does not list: a turn that only acknowledges, and a hit far weaker than the best."""

from __future__ import annotations

from memory_pipeline.stages.recall.rank import DAY_SECONDS, Fused, RankOptions, rank

NOW = 1_800_000_000.0


def turn(text: str, role: str = "user", session: str = "s1") -> dict:
    return {"tier": "messages", "text": text, "message": text, "role": role, "date": "2026-11-01",
            "session_id": session, "source_message_ids": [text[:8]], "created_ts": NOW - DAY_SECONDS}


def test_an_acknowledgement_is_no_hit_and_what_it_acknowledges_is():
    """"Got it, I'll keep that in mind." is indexed with the user's turn before it in its words, and
    matched the question through them; it says nothing of its own."""
    payloads = {"said": turn("The staging database runs on port 6380."),
                "ack": turn("Got it, I'll keep that in mind.", "assistant"),
                "done": turn("Got it, I moved the staging database to port 6380.", "assistant")}
    fused = {"ack": Fused(score=0.9), "said": Fused(score=0.8), "done": Fused(score=0.7)}
    assert [h.id for h in rank(payloads, fused, RankOptions(now_ts=NOW))] == ["said", "done"]


def test_a_hit_far_weaker_than_the_best_is_left_out():
    """In a small memory every point is a candidate: a statement a tenth as close as the best one is not
    an answer to the question, however few hits that leaves."""
    payloads = {"port": turn("The staging database runs on port 6380.", session="s1"),
                "near": turn("Staging resets every Sunday night.", session="s2"),
                "far": turn("I prefer pytest over unittest for new tests.", session="s3")}
    fused = {"port": Fused(score=1.0), "near": Fused(score=0.4), "far": Fused(score=0.06)}
    assert [h.id for h in rank(payloads, fused, RankOptions(now_ts=NOW))] == ["port", "near"]
    listed = rank(payloads, fused, RankOptions(now_ts=NOW, floor_share=0.0))
    assert [h.id for h in listed] == ["port", "near", "far"]
