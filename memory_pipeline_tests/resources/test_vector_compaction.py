"""Compaction of the local week stores: merged memories lose their vectors (not their payloads),
free SQLite pages are given back, week stores with no point are removed, the keyword statistics
of the recall index count live memories only."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_pipeline.resources.vectors.recall_index import load_index
from memory_pipeline.resources.vectors.vector_compaction import (
    compact_store,
    drop_merged_vectors,
    folder_bytes,
    remove_if_empty,
    vacuum,
)
from memory_pipeline.resources.vectors.vector_shards import ShardedStore
from memory_pipeline.stages.index.sparse import sparse_vector
from memory_pipeline_tests.resources.test_vector_store import DIM, random_point


def point(key: str, day: str, text: str | None = None, **payload):
    p = random_point(key, text or f"note {key} about the deploy script",
                     {"tier": "observations", "date": day} | payload)
    return p.model_copy(update={"sparse": sparse_vector(p.text)})


@pytest.fixture
def shards(tmp_path: Path) -> ShardedStore:
    return ShardedStore(tmp_path / "state" / "qdrant", dimension=DIM, lock_timeout=5)


def test_vacuum_gives_back_the_pages_of_deleted_points_and_keeps_the_rest(shards):
    points = [point(f"p{i}", "2026-11-16", f"note {i} " + "padding words " * 200) for i in range(300)]
    shards.upsert(points)
    [shard] = shards.shards()
    assert vacuum(shard) == 0  # nothing free yet: nothing rewritten
    shards.delete([p.id for p in points[:250]])
    before = folder_bytes(shard.path)
    freed = vacuum(shard)
    assert freed > 0 and folder_bytes(shard.path) == before - freed
    assert sorted(p.id for p in shards.scroll_all()) == sorted(p.id for p in points[250:])
    assert vacuum(shard) == 0  # once compact, a second run leaves the file alone


def test_a_week_store_with_no_point_is_removed_and_one_with_points_kept(shards):
    kept, emptied = point("a", "2026-11-16"), point("b", "2026-11-23")
    shards.upsert([kept, emptied])
    shards.delete([emptied.id])
    week_47, week_48 = shards.shards()
    assert remove_if_empty(week_47) == 0 and week_47.path.is_dir()
    assert remove_if_empty(week_48) > 0 and not week_48.path.exists()
    assert [s.path.name for s in shards.shards()] == ["2026-W47"] and shards.count() == 1


def test_merged_memories_keep_their_payload_but_leave_search_and_the_keyword_statistics(shards):
    live = point("live", "2026-11-16", "deploy with the blue green script")
    copies = [point(f"c{i}", "2026-11-17", "deploy with the blue green script again", merged_into=live.id)
              for i in range(3)]
    other = point("other", "2026-11-17", "the cache warms on start")
    shards.upsert([live, other, *copies])
    merged = {p.id: p for p in shards.scroll_all(with_vectors=True) if p.payload.get("merged_into")}
    assert drop_merged_vectors(shards, merged) == 3
    after = {p.id: p for p in shards.scroll_all(with_vectors=True)}
    assert all(after[c.id].dense is None and after[c.id].sparse is None for c in copies)
    assert all(after[c.id].payload["merged_into"] == live.id for c in copies)  # where its sources went
    assert after[live.id].dense is not None and after[other.id].sparse is not None
    index = load_index(shards)
    assert sorted(index.ids) == sorted([live.id, other.id])  # df of "deploy" counts one memory, not four
    assert len(index.postings["deploy"][0]) == 1


def test_compact_store_reports_what_it_reclaimed(shards):
    points = [point(f"p{i}", "2026-11-16", f"note {i} " + "padding words " * 200) for i in range(200)]
    gone = point("gone", "2026-11-23")
    shards.upsert([*points, gone])
    shards.delete([p.id for p in points[:150]] + [gone.id])
    report = compact_store(shards, {})
    assert report.stores_removed == 1 and report.stores_vacuumed == 1 and report.bytes_reclaimed > 0
    assert report.vectors_dropped == 0 and shards.count() == 50
    assert compact_store(shards, {}).bytes_reclaimed == 0  # nothing left to give back
