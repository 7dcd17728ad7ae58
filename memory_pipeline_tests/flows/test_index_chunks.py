"""A day's points reach the store a chunk at a time, read from a source made anew for each pass."""

from __future__ import annotations

import pytest

from memory_pipeline.flows import index
from memory_pipeline.flows.index import index_day
from memory_pipeline.models import stable_id
from memory_pipeline.resources.embedder import get_embedder
from memory_pipeline.resources.vector_store import StorePoint, VectorStore

DAY = "2026-11-16"


class CountedStore(VectorStore):
    """The real local store, recording the size of each upsert."""

    upserts: list[int] = []

    def upsert(self, points: list[StorePoint]) -> None:
        CountedStore.upserts.append(len(points))
        super().upsert(points)


def point(n: int, text: str | None = None) -> StorePoint:
    return StorePoint(id=stable_id("chunks", str(n)), text=text or f"note {n}: step {n} of the run",
                      payload={"tier": "messages", "date": DAY, "project": "p", "scope": "project"})


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setattr(index, "EMBED_CHUNK", 4)
    CountedStore.upserts = []
    return CountedStore(tmp_path / "qdrant", None, dimension=get_embedder().dimension, lock_timeout=5)


def test_a_source_is_read_twice_and_written_a_chunk_at_a_time(store, tmp_path):
    reads = []

    def source():
        reads.append(1)
        yield from (point(n) for n in range(10))
        yield point(3)  # the same message twice (an overlapping window) counts once

    stats = index_day(store, get_embedder(), DAY, "messages", source, tmp_path / "index")
    assert len(reads) == 2 and CountedStore.upserts == [4, 4, 2]
    assert (stats.points, stats.embedded, stats.stored, stats.unchanged) == (10, 10, 10, 0)
    assert store.count({"date": DAY}) == 10


def test_a_re_run_embeds_only_what_changed_and_deletes_what_is_gone(store, tmp_path):
    manifests = tmp_path / "index"
    index_day(store, get_embedder(), DAY, "messages", [point(n) for n in range(10)], manifests)
    CountedStore.upserts = []
    edited = [point(n) for n in range(9)] + [point(4, "note 4: edited")]
    stats = index_day(store, get_embedder(), DAY, "messages", lambda: iter(edited), manifests)
    # point 4 keeps its id with new text (changed), point 9 is gone; the first point of an id wins
    assert (stats.points, stats.embedded, stats.unchanged, stats.deleted, stats.stored) == (9, 0, 9, 1, 9)
    changed = [point(n) for n in range(8)] + [point(8, "note 8: edited")]
    stats = index_day(store, get_embedder(), DAY, "messages", changed, manifests)
    assert (stats.embedded, stats.unchanged, stats.stored) == (1, 8, 9) and CountedStore.upserts == [1]
    assert {p.text for p in store.scroll_all()} >= {"note 8: edited"} and store.count() == 9
