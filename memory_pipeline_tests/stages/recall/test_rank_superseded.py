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
