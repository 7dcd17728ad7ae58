"""Local-mode upserts: one SQLite commit per batch (kept or rolled back whole), float32 dense vectors."""

from __future__ import annotations

import pickle
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from memory_pipeline.resources.vectors.vector_commits import one_commit
from memory_pipeline.resources.vectors.vector_store import VectorStore
from memory_pipeline_tests.resources.test_vector_store import DIM, random_point


def _store(tmp_path: Path) -> VectorStore:
    store = VectorStore(tmp_path / "qdrant", None, dimension=DIM, lock_timeout=5.0)
    store.ensure_collection()
    return store


def test_a_batched_upsert_is_on_disk_after_the_store_is_reopened(tmp_path: Path) -> None:
    points = [random_point(f"k{i}", f"text {i}", {"n": i}) for i in range(600)]  # three batches
    _store(tmp_path).upsert(points)
    reopened = VectorStore(tmp_path / "qdrant", None, dimension=DIM)
    assert reopened.count() == 600
    assert reopened.retrieve([points[599].id])[0].payload["n"] == 599


def test_a_failed_batch_leaves_nothing_half_written(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.upsert([random_point("kept", "kept")])
    with pytest.raises(RuntimeError), store.session():
        with one_commit(store.client, store.collection):
            store.client.upsert(store.collection, points=[VectorStore._struct(random_point(k, k)) for k in "ab"])
            raise RuntimeError("killed mid-batch")
    reopened = VectorStore(tmp_path / "qdrant", None, dimension=DIM)
    assert reopened.count() == 1


def test_the_in_memory_engine_is_left_alone(tmp_path: Path) -> None:
    store = VectorStore(None, ":memory:", dimension=DIM)
    store.ensure_collection()
    store.upsert([random_point("m", "memory")])
    assert store.count() == 1


def test_local_mode_stores_dense_vectors_as_float32_and_reads_them_back_as_floats(tmp_path: Path) -> None:
    point = random_point("v", "vector")
    _store(tmp_path).upsert([point])
    with sqlite3.connect(next((tmp_path / "qdrant").rglob("storage.sqlite"))) as db:
        (stored,) = db.execute("SELECT point FROM points").fetchone()
    assert pickle.loads(stored).vector["dense"].dtype == np.float32
    read = VectorStore(tmp_path / "qdrant", None, dimension=DIM).retrieve([point.id], with_vectors=True)[0]
    assert all(isinstance(x, float) for x in read.dense)
    assert np.allclose(read.dense, point.dense, atol=1e-6)  # float32 precision
