"""The in-memory recall index: BM25, dense search, numpy filters, loading from a real local store."""

from __future__ import annotations

import numpy as np

from memory_pipeline.models import stable_id
from memory_pipeline.resources.vectors.recall_index import RecallIndex, load_index, read_generation
from memory_pipeline.resources.vectors.vector_store import StorePoint, VectorStore
from memory_pipeline.stages.index.sparse import sparse_vector, tokenize
from memory_pipeline.stages.recall.rank import RecallFilters


def unit(*values: float) -> list[float]:
    vector = np.array(values, dtype=np.float32)
    return (vector / np.linalg.norm(vector)).tolist()


POINTS = [
    StorePoint(id=stable_id("a"), text="redis pool timeout with 32 workers", dense=unit(1, 0, 0),
               payload={"tier": "messages", "date": "2026-11-01", "session_id": "s1", "priority": None}),
    StorePoint(id=stable_id("b"), text="keyset pagination for the orders api", dense=unit(0, 1, 0),
               payload={"tier": "observations", "date": "2026-11-03", "session_id": "s2", "priority": "high"}),
    StorePoint(id=stable_id("c"), text="redis cache eviction policy", dense=unit(0.7, 0, 0.7),
               payload={"tier": "observations", "date": "2026-11-05", "session_id": "s1", "priority": "low"}),
]


def test_bm25_prefers_the_document_with_more_and_rarer_query_terms():
    index = RecallIndex(POINTS)
    found = index.sparse_search(tokenize("redis pool"), 10, None)
    assert [index.ids[r] for r, _ in found] == [stable_id("a"), stable_id("c")]
    assert found[0][1] > found[1][1] > 0
    assert index.sparse_search(tokenize("kafka"), 10, None) == []


def test_bm25_normalizes_length_so_a_long_reply_does_not_outrank_the_short_turn_that_says_it():
    filler = " ".join(f"word{n}" for n in range(120))
    points = [StorePoint(id=stable_id("short"), text="I adopted a cat named Luna", dense=unit(1, 0, 0),
                         payload={"tier": "messages"}),
              StorePoint(id=stable_id("long"), text=f"cat cat luna adopted {filler}", dense=unit(0, 1, 0),
                         payload={"tier": "messages"}),
              *[StorePoint(id=stable_id(f"other{n}"), text=f"unrelated turn number {n}", dense=unit(0, 0, 1),
                           payload={"tier": "messages"}) for n in range(8)]]
    index = RecallIndex(points)
    found = index.sparse_search(tokenize("adopted cat luna"), 10, None)
    assert [index.ids[r] for r, _ in found] == [stable_id("short"), stable_id("long")]
    loose = RecallIndex(points, b=0.0)  # without length normalization the long reply's repeats win
    assert index.ids[loose.sparse_search(tokenize("adopted cat luna"), 10, None)[0][0]] == stable_id("long")


def test_dense_search_is_cosine_order():
    index = RecallIndex(POINTS)
    found = index.dense_search(unit(1, 0.1, 0), 2, None)
    assert [index.ids[r] for r, _ in found] == [stable_id("a"), stable_id("c")]


def test_filters_become_masks():
    index = RecallIndex(POINTS)

    def ids(filters: RecallFilters) -> list[str]:
        mask = index.mask(filters)
        return [index.ids[r] for r, _ in index.dense_search(unit(1, 1, 1), 10, mask)]

    assert index.mask(RecallFilters()) is None
    assert set(ids(RecallFilters(tier="observations"))) == {stable_id("b"), stable_id("c")}
    assert ids(RecallFilters(since="2026-11-02", until="2026-11-04")) == [stable_id("b")]
    assert ids(RecallFilters(priority="low")) == [stable_id("c")]
    assert set(ids(RecallFilters(session_id="s1"))) == {stable_id("a"), stable_id("c")}
    assert ids(RecallFilters(session_id="missing")) == []


def test_load_index_from_a_local_store_and_generation_changes_on_write(tmp_path):
    store = VectorStore(tmp_path / "state" / "qdrant", None, dimension=3)
    assert len(load_index(store)) == 0  # no store folder yet
    store.ensure_collection()
    before = read_generation(store)
    store.upsert([p.model_copy(update={"sparse": sparse_vector(p.text)}) for p in POINTS])
    after = read_generation(store)
    assert after and after != before
    index = load_index(store)
    assert len(index) == 3 and index.generation == after
    assert index.payloads[index.row_of[stable_id("b")]]["priority"] == "high"
    store.delete([stable_id("c")])
    assert read_generation(store) != after
    assert len(load_index(store)) == 2


def test_a_word_a_short_turn_borrows_from_the_previous_turn_counts_less_than_its_own():
    said = "Yes, I adopted Luna from the shelter"
    points = [StorePoint(id=stable_id("own"), text=said, dense=unit(1, 0, 0),
                         payload={"tier": "messages", "message": said}),
              StorePoint(id=stable_id("borrowed"), text="Yes, from the shelter\n(after: Did you adopt Luna?)",
                         dense=unit(0, 1, 0), payload={"tier": "messages", "message": "Yes, from the shelter"})]
    index = RecallIndex(points)
    found = dict(index.sparse_search(tokenize("luna"), 10, None))
    own, borrowed = found[index.row_of[stable_id("own")]], found[index.row_of[stable_id("borrowed")]]
    assert 0 < borrowed < own
