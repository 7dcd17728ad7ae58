"""Local stores sharded by ISO week: routing, reading across weeks, and a run touching one week."""

from __future__ import annotations

from pathlib import Path

import pytest
from filelock import FileLock

from memory_pipeline.errors import BadInputError, StoreLockedError
from memory_pipeline.flows.index.observations import index_day
from memory_pipeline.models import content_hash
from memory_pipeline.resources.embedding.embedder import get_embedder
from memory_pipeline.resources.vectors.recall_index import load_index, read_generation
from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.resources.vectors.stores import legacy_store, workspace_store
from memory_pipeline.resources.vectors.vector_shards import ShardedStore, week_of
from memory_pipeline.resources.vectors.vector_store import VectorStore
from memory_pipeline_tests.resources.test_vector_store import DIM, random_point


def dated(key: str, day: str, tier: str = "messages"):
    return random_point(key, f"note {key} written on {day}", {"tier": tier, "date": day})


@pytest.fixture
def shards(tmp_path: Path) -> ShardedStore:
    return ShardedStore(tmp_path / "state" / "qdrant", dimension=DIM, lock_timeout=0.5)


@pytest.fixture
def embedded(tmp_path: Path) -> ShardedStore:
    """Week stores sized for the real embedding model, which the index runs below use."""
    return ShardedStore(tmp_path / "state" / "qdrant", dimension=get_embedder().dimension, lock_timeout=0.5)


def test_week_of_follows_iso_weeks_across_a_year_end():
    assert week_of("2026-11-22") == "2026-W47"  # a Sunday ends its ISO week
    assert week_of("2026-11-23") == "2026-W48"
    assert week_of("2027-01-01") == "2026-W53"
    with pytest.raises(BadInputError, match="not a day"):
        week_of("2026-13-01")


def test_retrieve_by_id_finds_points_in_any_week_and_skips_unknown_ids(shards):
    points = [dated("a", "2026-11-16"), dated("b", "2026-11-23"), dated("c", "2027-01-01")]
    shards.upsert(points)
    unknown = random_point("zz", "never stored", {"tier": "messages", "date": "2026-11-16"}).id
    found = shards.retrieve([points[2].id, points[0].id, unknown])
    assert sorted(p.id for p in found) == sorted([points[0].id, points[2].id])
    assert {p.id: p.payload["date"] for p in found}[points[2].id] == "2027-01-01"
    assert shards.retrieve([]) == []
    assert ShardedStore(shards.path.parent / "none", dimension=DIM).retrieve([unknown]) == []


def test_points_go_to_the_week_of_their_date_and_reads_span_every_week(shards, tmp_path):
    points = [dated("a", "2026-11-16"), dated("b", "2026-11-22"), dated("c", "2026-11-23"), dated("d", "2027-01-01")]
    shards.upsert(points)
    assert [Path(s.where()).name for s in shards.shards()] == ["2026-W47", "2026-W48", "2026-W53"]
    assert [s.count() for s in shards.shards()] == [2, 1, 1]
    assert shards.count() == 4 and shards.count({"date": "2026-11-23"}) == 1
    assert {p.id for p in shards.scroll_all()} == {p.id for p in points}
    hashes = {p.id: content_hash(p.text) for p in points}
    assert shards.missing_or_changed(hashes) == set()
    unknown = dated("z", "2026-11-16").id
    assert shards.missing_or_changed(hashes | {points[2].id: "changed", unknown: "x"}) == {points[2].id, unknown}

    before = read_generation(shards)
    shards.delete([points[1].id, points[3].id])
    assert shards.count() == 2 and read_generation(shards) != before
    index = load_index(shards)
    assert sorted(index.ids) == sorted([points[0].id, points[2].id])
    assert index.generation == read_generation(shards)


def test_an_empty_or_absent_root_reads_as_empty(shards):
    assert shards.shards() == [] and shards.count() == 0 and list(shards.scroll_all()) == []
    assert len(load_index(shards)) == 0
    (shards.path / "collection").mkdir(parents=True)  # not a week: ignored
    assert shards.shards() == []


def test_a_days_index_run_opens_only_its_own_week(embedded):
    shards, embedder = embedded, get_embedder()
    first = index_day(shards, embedder, "2026-11-16", "messages", [dated("a", "2026-11-16")])
    assert first.stored == 1
    # another process holds last week's store: this week's run neither waits for it nor fails
    with FileLock(f"{shards.shard_path('2026-11-16')}.lock"):
        stats = index_day(shards, embedder, "2026-11-23", "messages", [dated("b", "2026-11-23")])
        assert stats.embedded == 1 and stats.stored == 1
        with pytest.raises(StoreLockedError):
            index_day(shards, embedder, "2026-11-17", "messages", [dated("c", "2026-11-17")])
    assert shards.count() == 2


def test_re_indexing_a_day_replaces_only_that_days_points(embedded, tmp_path):
    shards, embedder = embedded, get_embedder()
    manifests = tmp_path / "state" / "index"
    index_day(shards, embedder, "2026-11-16", "messages", [dated("a", "2026-11-16")], manifests)
    index_day(shards, embedder, "2026-11-17", "messages", [dated("b", "2026-11-17")], manifests)
    stats = index_day(shards, embedder, "2026-11-16", "messages", [dated("a2", "2026-11-16")], manifests)
    assert stats.deleted == 1 and stats.embedded == 1 and stats.stored == 1
    assert sorted(p.payload["date"] for p in shards.scroll_all()) == ["2026-11-16", "2026-11-17"]
    # without a manifest the day's old points are found by an exact match on tier and date
    (manifests / "messages" / "2026-11-17.json").unlink()
    stats = index_day(shards, embedder, "2026-11-17", "messages", [], manifests)
    assert stats.deleted == 1 and shards.count() == 1


def test_a_qdrant_url_gives_one_unsharded_store_and_local_mode_one_edge_shard(tmp_path):
    store = workspace_store(tmp_path, "http://127.0.0.1:1", dimension=DIM)
    assert isinstance(store, VectorStore) and store.for_day("2026-11-22") is store and store.shards() == [store]
    local = workspace_store(tmp_path, None, dimension=DIM)
    assert isinstance(local, EdgeStore) and local.for_day("2026-11-22") is local and local.shards() == [local]
    assert local.path == tmp_path.resolve() / "vectors" and local.generation_file == tmp_path / "index-generation"
    legacy = legacy_store(tmp_path, dimension=DIM)
    assert legacy.shard_path("2026-11-22") == tmp_path.resolve() / "qdrant" / "2026-W47"


def test_the_dense_walk_keeps_twice_the_hits_it_is_asked_for():
    """Edge's default beam equals the limit; the recall's walk over 4-bit copies keeps twice that
    (docs/vector-engine.md, "Limits"), and a walk given no limit keeps Edge's default."""
    from memory_pipeline.resources.vectors.edge_store import dense_walk

    assert dense_walk(200).hnsw_ef == 400 and dense_walk().hnsw_ef is None
    assert dense_walk(200).quantization.rescore is False  # the hits are rescored from the payload table
