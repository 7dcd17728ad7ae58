"""A day's points reach the store a chunk at a time, read from a source made anew for each pass."""

from __future__ import annotations

import contextlib

import pytest

from memory_pipeline.flows.index import observations as index
from memory_pipeline.flows.index.observations import index_day
from memory_pipeline.models import stable_id
from memory_pipeline.resources.embedding.embedder import get_embedder
from memory_pipeline.resources.vectors.vector_store import StorePoint, VectorStore

DAY = "2026-11-16"


class CountedStore(VectorStore):
    """The real local store, recording the size of each upsert and each time it is opened (an outermost
    session)."""

    upserts: list[int] = []
    opens: int = 0
    depth: int = 0

    def upsert(self, points: list[StorePoint]) -> None:
        CountedStore.upserts.append(len(points))
        super().upsert(points)

    @contextlib.contextmanager
    def session(self):
        CountedStore.opens += CountedStore.depth == 0
        CountedStore.depth += 1
        try:
            with super().session():
                yield self
        finally:
            CountedStore.depth -= 1


def point(n: int, text: str | None = None) -> StorePoint:
    return StorePoint(id=stable_id("chunks", str(n)), text=text or f"note {n}: step {n} of the run",
                      payload={"tier": "messages", "date": DAY, "project": "p", "scope": "project"})


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setattr(index, "EMBED_CHUNK", 4)
    CountedStore.upserts, CountedStore.opens, CountedStore.depth = [], 0, 0
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


def test_a_day_opens_the_store_once_per_chunk_and_once_more_and_never_holds_it_while_embedding(store, tmp_path):
    """A chunk is written in the open that checks the next; the day's reads go in the first open and its count
    and build in the last (an Edge shard's open at 1M points takes 1.5 s)."""
    model = get_embedder()
    held_while_embedding = []

    class Watched:
        dimension = model.dimension

        def encode(self, texts):
            held_while_embedding.append(CountedStore.depth)
            return model.encode(texts)

    stats = index_day(store, Watched(), DAY, "messages", [point(n) for n in range(10)])
    assert CountedStore.upserts == [4, 4, 2] and held_while_embedding == [0, 0, 0]
    assert CountedStore.opens == 4  # three chunks and one more (two per chunk and two more before)
    assert (stats.points, stats.embedded, stats.stored) == (10, 10, 10) and store.count({"date": DAY}) == 10
    CountedStore.opens = 0
    stats = index_day(store, Watched(), DAY, "messages", [point(n) for n in range(9)])  # one gone, nothing new
    assert CountedStore.opens == 4 and (stats.deleted, stats.embedded, stats.stored) == (1, 0, 9)
    assert store.count({"date": DAY}) == 9


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
