"""Recall and the ledger: a memory the ledger superseded is de-ranked and names its replacement."""

from __future__ import annotations

from memory_pipeline.stages.recall.supersession import with_supersession
from memory_pipeline.stages.recall.rank import DAY_SECONDS, RankOptions, fuse, rank

NOW = 1_800_000_000.0


def fact(text: str) -> dict:
    return {"tier": "observations", "text": text, "date": "2026-11-20", "session_id": "s1",
            "source_message_ids": [text[:6]], "created_ts": NOW - DAY_SECONDS}


def test_a_superseded_fact_ranks_below_its_replacement_and_says_what_replaced_it():
    payloads = {"old": fact("The billing service uses Postgres 15"), "new": fact("We moved from Postgres 15 to 16")}
    superseded = {"old": {"event": "EVT-20261120-001", "by": "EVT-20261121-001", "text": "We moved from Postgres 15 to 16"}}
    options = RankOptions(fusion="weighted", now_ts=NOW, collapse_jaccard=1.1)
    fused = fuse([("old", 0.9), ("new", 0.7)], [("old", 5.0), ("new", 4.0)], options)
    plain = rank(payloads, fused, options)
    assert [h.id for h in plain] == ["old", "new"] and plain[0].replaced_by is None
    hits = rank(with_supersession(payloads, superseded), fused, options)
    assert [h.id for h in hits] == ["new", "old"]
    assert hits[1].replaced_by == "EVT-20261121-001: We moved from Postgres 15 to 16"
    assert hits[1].why["superseded"] == 1 and hits[0].why["superseded"] == 0
    assert with_supersession(payloads, {}) is payloads


def message(pid: str, text: str, role: str = "user", session: str = "s1", days_ago: float = 2) -> dict:
    return {"tier": "messages", "text": text, "message": text, "role": role, "date": "2026-11-19",
            "session_id": session, "source_message_ids": [pid], "project": "orders", "created_ts": NOW - days_ago * DAY_SECONDS}


def test_the_messages_of_a_superseded_fact_and_their_restatements_are_marked_and_ranked_below():
    old = "The orders service runs on Postgres 16"
    new = "We moved to Postgres 17 last week"
    payloads = {"said": message("m1", "The orders service runs on Postgres 16."),
                "noted": message("m2", "Noted: the orders service runs on Postgres 16.", role="assistant"),
                "other": message("m9", "The reports job runs at 16:00 every day.", session="s3"),
                "moved": message("m5", new, session="s2", days_ago=0.5)}
    superseded = {"fact-16": {"event": "EVT-20261119-001", "by": "EVT-20261128-002", "text": new, "old": old,
                              "entity": "postgres", "project": "orders", "session": "s1", "messages": ["m1"],
                              "at_ts": NOW - 1 * DAY_SECONDS, "by_session": "s2", "by_messages": ["m5"]}}
    marked = with_supersession(payloads, superseded)
    assert marked["said"]["superseded_by"] == f"EVT-20261128-002: {new}"  # cited by the old fact
    assert marked["noted"]["superseded_by"] == f"EVT-20261128-002: {new}"  # restates the old value
    assert "superseded_by" not in marked["other"] and "superseded_by" not in marked["moved"]
    assert marked["moved"]["replaces_event"] == "EVT-20261128-002"  # the current statement
    options = RankOptions(fusion="weighted", now_ts=NOW, collapse_jaccard=1.1)
    # the correction shares few words with the question: it matches worst, and answers what 16 matched
    fused = fuse([("noted", 0.9), ("said", 0.85), ("other", 0.3), ("moved", 0.2)],
                 [("noted", 6.0), ("said", 5.5), ("other", 2.0), ("moved", 1.0)], options)
    assert [h.id for h in rank(payloads, fused, options)][:2] == ["noted", "said"]  # before: 16 first
    hits = rank(marked, fused, options)
    assert hits[0].id == "moved" and {h.replaced_by for h in hits if h.id in ("said", "noted")} == {
        f"EVT-20261128-002: {new}"}
    later = message("m7", "The orders service runs on Postgres 16 again, we rolled back.", session="s4", days_ago=0)
    assert "superseded_by" not in with_supersession({"later": later}, superseded)["later"]  # said after the move


def test_two_sessions_message_ids_are_not_one_message():
    """Text sessions number their turns t1, t2, …: the same id in two sessions is two messages."""
    payloads = {"a": message("t1", "The orders service runs on Postgres 16.", session="pg16"),
                "b": message("t1", "We moved to Postgres 17 last week.", session="pg17")}
    options = RankOptions(fusion="weighted", now_ts=NOW, collapse_jaccard=1.1)
    fused = fuse([("a", 0.9), ("b", 0.8)], [("a", 5.0), ("b", 4.0)], options)
    assert [h.id for h in rank(payloads, fused, options)] == ["a", "b"]


def test_an_observation_of_only_the_superseded_facts_messages_is_marked_a_summary_of_more_is_not():
    said = message("m1", "Our tests run on Jest.")
    narrative = {"tier": "observations", "text": 'Our tests run on Jest: The user wrote: "Our tests run on Jest".',
                 "session_id": "s1", "source_message_ids": ["m1"], "created_ts": NOW - 2 * DAY_SECONDS}
    summary = narrative | {"text": "Set up the test suite and the CI", "source_message_ids": ["m1", "m2"]}
    elsewhere = narrative | {"session_id": "s2"}  # another session's message m1
    superseded = {"fact": {"event": "EVT-20261120-001", "by": "EVT-20261127-001", "session": "s1", "messages": ["m1"],
                           "text": "Tests run on Vitest these days, not Jest.", "old": "Our tests run on Jest."}}
    marked = with_supersession({"said": said, "narrative": narrative, "summary": summary, "elsewhere": elsewhere},
                               superseded)
    replaced = "EVT-20261127-001: Tests run on Vitest these days, not Jest."
    assert marked["said"]["superseded_by"] == replaced and marked["narrative"]["superseded_by"] == replaced
    assert "superseded_by" not in marked["summary"] and "superseded_by" not in marked["elsewhere"]
