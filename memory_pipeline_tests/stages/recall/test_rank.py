"""The pure recall ranking: fusion, decay, stale de-rank, collapse, cap, filters, query checks."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import date, datetime, timezone

import pytest

from memory_pipeline.errors import BadInputError
from memory_pipeline.stages.recall.rank import (
    DAY_SECONDS,
    Fused,
    RankOptions,
    RecallFilters,
    check_filters,
    check_limit,
    clean_query,
    decay_factor,
    fuse,
    matches,
    rank,
    recency_term,
)
from memory_pipeline.stages.recall.sources import seen_in
from memory_pipeline.stages.recall.when import named_window

NOW = 1_800_000_000.0


def payload(text: str, days_old: float = 0, **extra) -> dict:
    return {"tier": "messages", "text": text, "message": text, "role": "user", "date": "2026-11-01",
            "session_id": "s1", "source_message_ids": [text[:8]], "created_ts": NOW - days_old * DAY_SECONDS} | extra


def test_rrf_fusion_sums_reciprocal_ranks_and_records_ranks():
    options = RankOptions(fusion="rrf", rrf_k=60, dense_weight=1, sparse_weight=1)
    fused = fuse([("a", 0.9), ("b", 0.8)], [("b", 7.0), ("c", 3.0)], options)
    assert fused["b"].score == pytest.approx(1 / 62 + 1 / 61)
    assert fused["a"].score == pytest.approx(1 / 61)
    assert (fused["b"].dense_rank, fused["b"].sparse_rank, fused["c"].dense_rank) == (2, 1, None)


def test_weighted_fusion_normalizes_each_list_by_its_best_score():
    options = RankOptions(fusion="weighted", dense_weight=0.3, sparse_weight=0.7)
    fused = fuse([("a", 0.5), ("b", 0.25)], [("b", 10.0), ("c", 5.0)], options)
    assert fused["a"].score == pytest.approx(0.3)
    assert fused["b"].score == pytest.approx(0.3 * 0.5 + 0.7)
    assert fused["c"].score == pytest.approx(0.35)


def test_minmax_fusion_scales_each_list_between_its_worst_and_best():
    options = RankOptions(fusion="minmax", dense_weight=0.4, sparse_weight=0.6)
    fused = fuse([("a", 0.6), ("b", 0.5), ("c", 0.4)], [("c", 8.0)], options)
    assert fused["a"].score == pytest.approx(0.4)
    assert fused["b"].score == pytest.approx(0.2)
    assert fused["c"].score == pytest.approx(0.6)  # worst dense candidate, the only sparse one


def test_old_multiplicative_decay_is_still_available_for_comparison():
    assert decay_factor(NOW - 10 * DAY_SECONDS, NOW, 0.01) == pytest.approx(math.exp(-0.1))
    assert decay_factor(NOW + DAY_SECONDS, NOW, 0.01) == 1.0  # from the future: not boosted
    assert decay_factor(None, NOW, 0.01) == 1.0
    payloads = {"old": payload("old redis fix", days_old=100), "new": payload("new redis fix", days_old=0)}
    fused = fuse([("old", 0.9), ("new", 0.8)], [], RankOptions(fusion="weighted"))
    hits = rank(payloads, fused, RankOptions(now_ts=NOW, decay_rate=0.01, recency_weight=0, collapse_jaccard=1.1,
                                             session_weight=0.0))
    assert [h.id for h in hits] == ["new", "old"]  # why it was replaced: a 10% better old match lost
    assert hits[1].score == pytest.approx(fused["old"].score * math.exp(-1.0), rel=1e-4)


def test_recency_never_buries_a_strong_old_match():
    assert recency_term(NOW, NOW, 0.05, 30) == pytest.approx(0.05)
    assert recency_term(NOW - 30 * DAY_SECONDS, NOW, 0.05, 30) == pytest.approx(0.025)
    assert recency_term(NOW + DAY_SECONDS, NOW, 0.05, 30) == pytest.approx(0.05)  # the future counts as now
    assert recency_term(None, NOW, 0.05, 30) == 0.0
    payloads = {"old": payload("pgbouncer pool size answer", days_old=365),
                "new": payload("weak recent mention of pools", days_old=0)}
    fused = {"old": Fused(score=0.9), "new": Fused(score=0.7)}
    hits = rank(payloads, fused, RankOptions(now_ts=NOW))
    assert [h.id for h in hits] == ["old", "new"]
    assert hits[0].why["time"] < 0.001 and hits[1].why["time"] == pytest.approx(0.05)


def test_recency_breaks_near_ties_toward_the_recent():
    payloads = {"old": payload("raised the redis pool to 64", days_old=200),
                "new": payload("lowered the redis pool to 32", days_old=2)}
    fused = {"old": Fused(score=0.80), "new": Fused(score=0.78)}
    assert [h.id for h in rank(payloads, fused, RankOptions(now_ts=NOW))] == ["new", "old"]
    assert [h.id for h in rank(payloads, fused, RankOptions(now_ts=NOW, recency_weight=0))] == ["old", "new"]


def test_a_named_time_is_favoured_instead_of_the_newest():
    spring = datetime(2026, 4, 15, tzinfo=timezone.utc).timestamp()
    now = datetime(2026, 11, 23, tzinfo=timezone.utc).timestamp()
    payloads = {"spring": payload("migrated billing to postgres", created_ts=spring),
                "recent": payload("billing postgres upgrade planned", created_ts=now - DAY_SECONDS)}
    fused = {"spring": Fused(score=0.70), "recent": Fused(score=0.74)}
    options = RankOptions(now_ts=now)
    window = named_window("what did we do to billing last spring?", now)
    assert (window.start, window.end) == (date(2026, 3, 1), date(2026, 5, 31))
    assert [h.id for h in rank(payloads, fused, options, window)] == ["spring", "recent"]
    assert [h.id for h in rank(payloads, fused, options)] == ["recent", "spring"]
    assert [h.id for h in rank(payloads, fused, replace(options, time_aware=False), window)] == ["recent", "spring"]


@pytest.mark.parametrize("query, start, end", [
    ("Who came to dinner on May 3, 2026?", date(2026, 4, 30), date(2026, 5, 6)),
    ("what broke on 7 July, 2026", date(2026, 7, 4), date(2026, 7, 10)),
    ("the workout class in December 2025", date(2025, 12, 1), date(2025, 12, 31)),
    ("the outage two years ago", date(2024, 5, 25), date(2025, 5, 24)),
    ("what did I fix yesterday", date(2026, 11, 22), date(2026, 11, 22)),
    ("plans for the winter of 2025", date(2025, 12, 1), date(2026, 2, 28)),
    ("deploys in 2025", date(2025, 1, 1), date(2025, 12, 31)),
])
def test_named_windows(query, start, end):
    window = named_window(query, datetime(2026, 11, 23, 10, tzinfo=timezone.utc))
    assert (window.start, window.end) == (start, end)


@pytest.mark.parametrize("query", ["When did Caroline go to the support group?", "May I see the pool config?",
                                   "how do I run the tests"])
def test_queries_without_a_time_name_none(query):
    assert named_window(query, datetime(2026, 11, 23, tzinfo=timezone.utc)) is None


def test_an_observation_and_the_message_it_cites_are_one_hit():
    fact = {"tier": "observations", "text": "User chose keyset pagination for the orders API", "date": "2026-11-01",
            "session_id": "s1", "priority": "high", "source_message_ids": ["m7"], "created_ts": NOW}
    payloads = {"f1": fact, "m7": payload("ok let's go with keyset pagination", source_message_ids=["m7"]),
                "m8": payload("offset pagination is slow on big tables", source_message_ids=["m8"])}
    fused = {"f1": Fused(score=0.9), "m8": Fused(score=0.6)}  # the cited message itself was not retrieved
    hits = rank(payloads, fused, RankOptions(now_ts=NOW, observation_weight=1.0))
    assert [(h.id, h.source_message_ids) for h in hits] == [("f1", ["m7"]), ("m8", ["m8"])]
    fused["m7"] = Fused(score=0.5)
    hits = rank(payloads, fused, RankOptions(now_ts=NOW, observation_weight=1.0, collapse_same_sources=False))
    assert [h.id for h in hits] == ["f1", "m8"]  # one unit, scored by its best member
    assert hits[0].why["members"] == 2
    weighted = rank(payloads, fused, RankOptions(now_ts=NOW, observation_weight=0.5, collapse_same_sources=False))
    assert [h.id for h in weighted] == ["m8", "m7"]  # 0.5 × 0.9 < 0.5 (the message): the message speaks
    apart = rank(payloads, fused, RankOptions(now_ts=NOW, observation_weight=1.0, fuse_by_message=False,
                                              collapse_same_sources=False))
    assert [h.id for h in apart] == ["f1", "m8", "m7"]


def test_a_wide_narrative_stands_alone_and_is_dated_by_its_message_when_fused():
    old_message = payload("we moved the cache to redis", days_old=300, source_message_ids=["m1"])
    fact = {"tier": "observations", "text": "Cache moved to redis", "date": "2026-11-20", "session_id": "s1",
            "source_message_ids": ["m1"], "created_ts": NOW}  # captured (imported) today, said 300 days ago
    narrative = {"tier": "observations", "text": "A long day of cache work", "date": "2026-11-20", "session_id": "s1",
                 "source_message_ids": [f"m{i}" for i in range(1, 9)], "created_ts": NOW}
    payloads = {"m1": old_message, "f1": fact, "n1": narrative}
    hits = rank(payloads, {"f1": Fused(score=0.8), "n1": Fused(score=0.5)},
                RankOptions(now_ts=NOW, collapse_same_sources=False))
    assert [h.id for h in hits] == ["f1", "n1"]
    assert hits[0].why["time"] < 0.001  # the fact's unit is dated by the message it cites
    assert hits[1].source_message_ids == narrative["source_message_ids"]
def test_stale_items_are_deranked_not_dropped():
    payloads = {"a": payload("alpha pool fix", stale=True), "b": payload("beta cache note")}
    fused = fuse([("a", 0.9), ("b", 0.7)], [], RankOptions(fusion="weighted"))
    hits = rank(payloads, fused, RankOptions(now_ts=NOW, stale_factor=0.5))
    assert [h.id for h in hits] == ["b", "a"]
    assert hits[1].why["stale"] == 1


def test_near_duplicates_and_restated_sources_collapse():
    payloads = {
        "m1": payload("We raised max_connections to 64 in the redis pool", source_message_ids=["m1"]),
        "m2": payload("we raised max_connections to 64 in the Redis pool!", source_message_ids=["m2"]),
        "f1": {"tier": "observations", "text": "Redis pool now allows 64 connections", "date": "2026-11-01",
               "session_id": "s1", "priority": "high", "source_message_ids": ["m1"], "created_ts": NOW},
        "m3": payload("Keyset pagination for the orders API", source_message_ids=["m3"]),
    }
    fused = fuse([("m1", 0.9), ("m2", 0.89), ("f1", 0.8), ("m3", 0.5)], [], RankOptions())
    hits = rank(payloads, fused, RankOptions(now_ts=NOW))
    assert [h.id for h in hits] == ["m1", "m3"]
    kept = rank(payloads, fused, RankOptions(now_ts=NOW, collapse_same_sources=False, fuse_by_message=False))
    assert [h.id for h in kept] == ["m1", "f1", "m3"]
    fused_by_message = rank(payloads, fused, RankOptions(now_ts=NOW, collapse_same_sources=False))
    assert [(h.id, h.why["members"]) for h in fused_by_message] == [("m1", 2), ("m3", 1)]


def test_the_same_words_said_in_two_sessions_are_one_hit_citing_both():
    """A near-duplicate left out of the list gives the hit it repeats its source: the list shows the
    words once, seen in both sessions (and both dates), not one session's turn and nothing of the other."""
    said = ("I got my own set of sculpting tools today: a wire cutter, a modeling set, loop tools, a "
            "sculpting mat and rubber shapers for the clay pieces in my spring pottery class, plus calipers, "
            "sponges, a banding wheel and ribs in wood and steel")
    payloads = {
        "a": payload(said, session_id="s1", date="2026-01-13", source_message_ids=["m1"]),
        "b": payload(said + "!", session_id="s2", date="2025-12-23", source_message_ids=["m7"]),
        "e": payload(said, role="assistant", echo=True, session_id="s3", source_message_ids=["m9"]),
        "c": payload("Keyset pagination for the orders API", source_message_ids=["m3"]),
    }
    fused = fuse([("a", 0.9), ("b", 0.89), ("e", 0.88), ("c", 0.5)], [], RankOptions())
    hits = rank(payloads, fused, RankOptions(now_ts=NOW))
    assert [h.id for h in hits] == ["a", "c"]
    assert hits[0].source_message_ids == ["m1"]  # its own message, its own session and date
    assert [(s.session_id, s.message_ids, s.date) for s in hits[0].sources] == [
        ("s2", ["m7"], "2025-12-23"), ("s1", ["m1"], "2026-01-13")]  # oldest first; the echo is no source
    assert hits[0].why["mentions"] == 2
    assert seen_in(hits[0].sources, hits[0].why["mentions"]) == "seen in 2 sessions: s2 (2025-12-23), s1 (2026-01-13)"
    assert [s.session_id for s in hits[1].sources] == ["s1"]
    [first] = rank(payloads, fused, RankOptions(now_ts=NOW, limit=1))  # the twin ranks below the cap
    assert [s.session_id for s in first.sources] == ["s2", "s1"]


def test_a_narrative_quoting_a_listed_message_is_one_hit_with_it():
    """The offline Observer's narrative quotes the segment's request and cites its other messages: the
    request shows once, as the message, at the better of the two places."""
    ask = "I'm looking for some inspiration for my next painting project, I've been stuck"
    narrative = {"tier": "observations", "text": f'Painting…: The user wrote: "{ask}". Outcome: Happy to help.',
                 "date": "2026-11-01", "session_id": "s1", "source_message_ids": ["m5", "m6"], "created_ts": NOW}
    payloads = {"m1": payload(ask, source_message_ids=["m1"]), "n1": narrative,
                "m5": payload("I like a bold and bright palette", source_message_ids=["m5"]),
                "m6": payload("vibrant colours make a dynamic piece", source_message_ids=["m6"]),
                "m9": payload("my cooking is stuck in a rut", source_message_ids=["m9"])}
    message_first = {"m1": Fused(score=0.9), "n1": Fused(score=1.2), "m9": Fused(score=0.4)}  # × 0.6: 0.72
    assert [h.id for h in rank(payloads, message_first, RankOptions(now_ts=NOW))] == ["m1", "m9"]
    narrative_first = {"m1": Fused(score=0.5), "n1": Fused(score=1.2), "m9": Fused(score=0.6)}
    hits = rank(payloads, narrative_first, RankOptions(now_ts=NOW))
    assert [h.id for h in hits] == ["m1", "m9"]  # the message takes the narrative's place
    assert hits[0].source_message_ids == ["m1"]
    kept = rank(payloads, narrative_first, RankOptions(now_ts=NOW, collapse_quoted=False))
    assert [h.id for h in kept] == ["n1", "m9", "m1"]


def test_inject_cap_and_hit_fields():
    payloads = {f"p{i}": payload(f"distinct text number {i} about topic{i}", source_message_ids=[f"m{i}"])
                for i in range(30)}
    fused = fuse([(f"p{i}", 1 - i / 100) for i in range(30)], [], RankOptions())
    hits = rank(payloads, fused, RankOptions(now_ts=NOW))
    assert len(hits) == 10
    assert hits[0].text.startswith("User: ") and hits[0].session_id == "s1" and hits[0].date == "2026-11-01"
    assert set(hits[0].why) >= {"dense_rank", "dense_score", "sparse_rank", "sparse_score"}
    assert len(rank(payloads, fused, RankOptions(now_ts=NOW, limit=3))) == 3


def test_filters_predicate_and_validation():
    item = payload("x", tier="observations", priority="high", date="2026-11-05")
    assert matches(item, RecallFilters(tier="observations", since="2026-11-01", until="2026-11-05", priority="high",
                                       session_id="s1"))
    assert not matches(item, RecallFilters(tier="messages"))
    assert not matches(item, RecallFilters(since="2026-11-06"))
    assert not matches(item, RecallFilters(priority="low"))
    assert not matches(item, RecallFilters(session_id="other"))
    for bad in (RecallFilters(tier="facts"), RecallFilters(priority="urgent"), RecallFilters(since="yesterday"),
                RecallFilters(since="2026-11-05", until="2026-11-01")):
        with pytest.raises(BadInputError):
            check_filters(bad)
    # no project known ("") is a scope, not a bad name: the user's own memories and those of no project
    assert check_filters(RecallFilters(project="")).project == ""
    assert matches(payload("x", project="", scope="project"), RecallFilters(project=""))
    assert matches(payload("x", project="shop", scope="user"), RecallFilters(project=""))
    assert not matches(payload("x", project="shop", scope="project"), RecallFilters(project=""))
    with pytest.raises(BadInputError):
        check_filters(RecallFilters(project="../up"))
    for bad_limit in (0, 101, True, "5"):
        with pytest.raises(BadInputError):
            check_limit(bad_limit)


@pytest.mark.parametrize("query, message", [
    ("", "empty"), ("   \n\t ", "empty"), ("x" * 100_000, "limit"), ("the and of it", "no words"),
    ("\x00\x01\x02", "empty"), ("?!?", "no words"),
])
def test_bad_queries_are_refused_clearly(query, message):
    with pytest.raises(BadInputError, match=message):
        clean_query(query)


def test_control_characters_are_removed_and_unicode_kept():
    assert clean_query("redis\x00 pool\x1b timeout\u200b") == "redis pool timeout"
    assert clean_query("  数据库 连接池  ") == "数据库 连接池"


def test_echo_feedback_moves_a_memory_and_shows_in_why():
    from memory_pipeline.stages.recall.rank import Fused, RankOptions, rank

    payloads = {
        "used": {"tier": "observations", "text": "pool of 128 clients", "date": "2026-11-20", "feedback": 0.3},
        "ignored": {"tier": "observations", "text": "socket path too long", "date": "2026-11-20", "feedback": -0.2},
    }
    fused = {"used": Fused(score=1.0), "ignored": Fused(score=1.1)}
    hits = rank(payloads, fused, RankOptions(decay_rate=0.0))
    assert [h.id for h in hits] == ["used", "ignored"]
    assert hits[0].why["feedback"] == 0.3 and hits[1].why["feedback"] == -0.2


def test_an_observation_agreeing_with_its_message_lifts_the_unit():
    fact = {"tier": "observations", "text": "Caroline moved from Sweden", "date": "2026-11-01", "session_id": "s1",
            "source_message_ids": ["m1"], "created_ts": NOW}
    payloads = {"f1": fact, "m1": payload("I moved from my home country, Sweden", source_message_ids=["m1"]),
                "m2": payload("Sweden is lovely in summer", source_message_ids=["m2"])}
    fused = {"f1": Fused(score=0.5), "m1": Fused(score=0.60), "m2": Fused(score=0.62)}
    options = RankOptions(now_ts=NOW, recency_weight=0.0, session_weight=0.0, observation_weight=0.6)
    alone = rank(payloads, fused, replace(options, member_share=0.0))
    assert [h.id for h in alone] == ["m2", "m1"]  # the best member alone: 0.60 < 0.62
    assert RankOptions().member_share == 0.1
    hits = rank(payloads, fused, options)
    assert [h.id for h in hits] == ["m1", "m2"]  # 0.60 + 0.1 × 0.6 × 0.5 = 0.63
    assert hits[0].score == pytest.approx(0.63) and hits[0].why["members"] == 2
