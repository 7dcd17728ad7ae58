"""The shard's keyword statistics (`vectors.bm25.json`: its keyword documents and their total length,
the average BM25 normalizes by) count the points the shard holds, however often and by how many
writers at once they are written: a point written again, or by a second `ingest` running beside the
first, replaces its count instead of adding one. Deleted points leave the count.
Before: every write added its points, so two ingest runs at once counted 1,254-1,494 documents for a
shard of 774 points, and the order of keyword hits shifted for good."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_pipeline.resources.vectors import edge_store
from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.stages.index.message_docs import keyword_counts
from memory_pipeline_tests.resources.test_vector_store import DIM, PROJECT_ROOT, random_point, run_python

WRITER = """
import sys
from pathlib import Path
from memory_pipeline.resources.vectors import edge_store
from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline_tests.resources.test_edge_keyword_stats import day_points
store = EdgeStore(Path(sys.argv[1]), dimension=int(sys.argv[2]), lock_timeout=60)
for round in range(3):
    for day in range(4):
        store.upsert(day_points(day))
"""


def day_points(day: int):
    return [random_point(f"d{day}-{n}", f"turn {n} of day {day}: the redis pool size is {n * 7} connections",
                         {"tier": "messages", "role": "user", "date": f"2026-05-0{day + 1}", "session_id": f"s{day}"})
            for n in range(40)]


def expected(points) -> tuple[int, float]:
    lengths = [keyword_counts({**p.payload, "text": p.text})[1] for p in points]
    return len(lengths), sum(lengths)


def stats(store: EdgeStore) -> tuple[int, float]:
    document = json.loads(store.keyword_stats.path.read_text())
    return document["documents"], document["length"]


def test_writing_the_same_points_again_does_not_count_them_again(tmp_path: Path):
    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    points = [p for day in range(2) for p in day_points(day)]
    store.upsert(points)
    store.upsert(points)
    store.upsert(points[:10])
    documents, length = stats(store)
    assert (documents, pytest.approx(length)) == (len(points), pytest.approx(expected(points)[1]))
    store.delete([p.id for p in points[:5]])
    assert stats(store)[0] == len(points) - 5
    assert store.keyword_stats.read()[0] == len(points) - 5


def test_two_writers_at_once_count_each_point_once(tmp_path: Path):
    shard = tmp_path / "vectors"
    EdgeStore(shard, dimension=DIM, lock_timeout=5).ensure_collection()
    writers = [run_python(WRITER, str(shard), str(DIM), cwd=PROJECT_ROOT) for _ in range(2)]
    assert [w.wait(timeout=300) for w in writers] == [0, 0]
    store = EdgeStore(shard, dimension=DIM, lock_timeout=5)
    points = [p for day in range(4) for p in day_points(day)]
    assert store.count() == len(points)
    documents, length = stats(store)
    assert documents == len(points) and length == pytest.approx(expected(points)[1])


def test_a_table_of_before_the_keyword_lengths_gets_them_at_its_next_open(tmp_path: Path):
    import sqlite3

    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    points = [p for day in range(2) for p in day_points(day)]
    store.upsert(points)
    store.table.close()
    with sqlite3.connect(tmp_path / "vectors.payloads.sqlite") as db:  # the table as a former version left it
        db.execute("ALTER TABLE payloads DROP COLUMN keywords")
        db.execute("DELETE FROM meta WHERE key IN ('keywords', 'keyword_documents', 'keyword_length')")
    store.keyword_stats.record(len(points) * 3, 9999.0)  # and its stats, counted three times over
    reopened = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    assert reopened.count() == len(points)
    documents, length = stats(reopened)
    assert documents == len(points) and length == pytest.approx(expected(points)[1])
    reopened.upsert(points[:3])
    assert stats(reopened)[0] == len(points)


def grown_points() -> list[list]:
    """Three days whose turns differ in length: each day's write moves the shard's average."""
    words = "the deploy of the billing service failed on the staging cluster because the token expired"
    return [[random_point(f"g{day}-{n}", f"turn {n} of day {day}: " + " ".join(words.split()[:3 + day * 6]),
                          {"tier": "messages", "role": "user", "date": f"2026-06-0{day + 1}", "session_id": f"g{day}"})
             for n in range(30)] for day in range(3)]


def sparse_of(store: EdgeStore, points) -> dict:
    return {p.id: (p.sparse[0], [round(v, 5) for v in p.sparse[1]])
            for p in store.retrieve([p.id for p in points], with_vectors=True)}


def test_a_shard_written_a_day_at_a_time_scores_as_one_written_at_once_after_its_optimize(tmp_path: Path):
    """The values each day's write made used that day's average; once the averages stray more than
    SETTLE_TOLERANCE from the shard's, `optimize()` (after a run's writes) makes them all again, so the
    same points score the same whatever order they were written in. Before: the values kept each write's
    average for good (LoCoMo dev ingested twice: recall@10 0.805 and 0.800)."""
    days = grown_points()
    everything = [p for day in days for p in day]
    at_once = EdgeStore(tmp_path / "once" / "vectors", dimension=DIM, lock_timeout=5)
    at_once.upsert(everything)
    grown = EdgeStore(tmp_path / "grown" / "vectors", dimension=DIM, lock_timeout=5)
    for day in days:
        grown.upsert(day)
    assert sparse_of(grown, everything) != sparse_of(at_once, everything)  # each day's average
    made = grown.keyword_stats.made_with()
    assert made is not None and made[0] < made[1]
    grown.optimize()
    assert sparse_of(grown, everything) == sparse_of(at_once, everything)
    documents, length = grown.keyword_stats.read()
    assert grown.keyword_stats.made_with() == [pytest.approx(length / documents)] * 2
    assert (documents, length) == stats(at_once)


def test_values_made_within_the_tolerance_are_left_as_they_are(tmp_path: Path):
    """A write that moves the average by less than SETTLE_TOLERANCE re-keys nothing: a large store's daily
    ingest does not rewrite every point."""
    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    longer = [random_point(f"l{n}", f"{p.text} today", p.payload) for n, p in enumerate(day_points(2))]
    points = day_points(0) + day_points(1) + longer  # one word more in the last 40: the average moves by 4%
    store.upsert(points[:80])
    store.upsert(points[80:])
    made = store.keyword_stats.made_with()
    assert made is not None and made[0] != made[1]  # the two writes' averages differ, by less than the tolerance
    assert store.keyword_stats.settled(store.table.keyword_totals())
    before = sparse_of(store, points)
    store.optimize()
    assert sparse_of(store, points) == before  # a re-key would have made the first write's values again
    assert store.keyword_stats.made_with() == made
    assert edge_store.SETTLE_TOLERANCE == 0.05


def test_a_stats_file_of_before_the_range_counts_as_made_with_its_average(tmp_path: Path):
    """A shard written by a version that did not keep the averages' range: an upgrade rewrites nothing (a
    re-key holds the shard for minutes at 1M points); its values count as made with the average the file
    records, and the range grows from there."""
    days = grown_points()
    store = EdgeStore(tmp_path / "old" / "vectors", dimension=DIM, lock_timeout=5)
    store.upsert(days[0])
    document = json.loads(store.keyword_stats.path.read_text())
    store.keyword_stats.path.write_text(json.dumps({k: v for k, v in document.items() if k != "made_with"}))
    assert store.keyword_stats.made_with() is None
    assert store.keyword_stats.settled(store.table.keyword_totals())
    before = sparse_of(store, days[0])
    store.optimize()
    assert sparse_of(store, days[0]) == before  # nothing re-keyed
    recorded = document["length"] / document["documents"]
    store.upsert(days[1])  # longer turns: the average moves
    documents, length = store.keyword_stats.read()
    assert store.keyword_stats.made_with() == [pytest.approx(recorded), pytest.approx(length / documents)]
