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

from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.stages.index.message_docs import keyword_counts
from memory_pipeline_tests.resources.test_vector_store import DIM, PROJECT_ROOT, random_point, run_python

WRITER = """
import sys
from pathlib import Path
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
