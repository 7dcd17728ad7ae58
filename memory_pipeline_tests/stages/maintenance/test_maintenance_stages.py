"""Staleness and near-duplicate grouping, pure."""

from __future__ import annotations

from memory_pipeline.stages.maintenance.duplicates import FactVector, near_duplicate_groups
from memory_pipeline.stages.maintenance.staleness import Memory, stale_changes


def test_old_unused_memories_become_stale_and_used_ones_come_back():
    memories = [
        Memory("old-unused", "2026-08-01", stale=False),
        Memory("old-recalled", "2026-08-01", stale=False, recalls=2),
        Memory("old-echoed", "2026-08-01", stale=False, echoes=1),
        Memory("young-unused", "2026-11-01", stale=False),
        Memory("stale-recalled", "2026-01-01", stale=True, recalls=1),
        Memory("stale-unused", "2026-01-01", stale=True),
    ]
    changes = stale_changes(memories, today="2026-11-23", stale_after_days=90)
    assert changes.tag == ["old-unused"]
    assert changes.untag == ["stale-recalled"]


def test_exactly_the_age_limit_is_not_stale_yet():
    memories = [Memory("edge", "2026-08-25", stale=False), Memory("over", "2026-08-24", stale=False)]
    assert stale_changes(memories, today="2026-11-23", stale_after_days=90).tag == ["over"]


def test_the_age_counts_from_when_the_memory_could_first_be_recalled():
    memories = [Memory("imported-today", "2025-06-01", stale=False, since="2026-11-23"),
                Memory("imported-long-ago", "2025-06-01", stale=False, since="2026-08-01"),
                Memory("seen-before-its-day", "2026-08-01", stale=False, since="2026-07-01")]
    changes = stale_changes(memories, today="2026-11-23", stale_after_days=90)
    assert changes.tag == ["imported-long-ago", "seen-before-its-day"]


def vec(*values: float) -> list[float]:
    return list(values)


def test_groups_join_new_facts_to_known_ones_transitively_and_keep_the_freshest():
    known = [FactVector("k1", 1.0, vec(1, 0, 0)), FactVector("k2", 2.0, vec(0.96, 0.28, 0)),
             FactVector("other", 3.0, vec(0, 0, 1))]
    new = [FactVector("n1", 5.0, vec(0.99, 0.14, 0)), FactVector("alone", 6.0, vec(0, 1, 0))]
    [merge] = near_duplicate_groups(new, known, similarity=0.95)
    assert merge.members == ["k1", "k2", "n1"] and merge.keep == "n1"


def test_facts_already_merged_and_known_pairs_without_a_new_fact_are_left_alone():
    known = [FactVector("k1", 1.0, vec(1, 0)), FactVector("k2", 2.0, vec(1, 0.01)),
             FactVector("folded", 3.0, vec(1, 0), merged_into="k1")]
    assert near_duplicate_groups([FactVector("n", 4.0, vec(0, 1))], known, similarity=0.9) == []
    assert near_duplicate_groups([], known, similarity=0.9) == []
