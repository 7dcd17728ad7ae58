"""The Qdrant store: its contract (points, filters, scrolls) on every backend that runs here, and
local mode's sharing of one folder between processes.

Backends: local mode (a folder, under a file lock) and Qdrant's in-memory engine through the
server path (`url`, no lock, no file). A Qdrant server cannot be installed on these machines, so
`QDRANT_URL=http://…` itself is not exercised here (docs/deployment.md).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from memory_pipeline.errors import ServiceError, StoreLockedError
from memory_pipeline.models import content_hash, stable_id
from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.resources.vectors.vector_store import StorePoint, VectorStore
from memory_pipeline.stages.index.sparse import sparse_vector
from memory_pipeline_tests.support.paths import PROJECT_ROOT

DIM = 8


def random_point(key: str, text: str, payload: dict | None = None) -> StorePoint:
    rng = random.Random(key)
    return StorePoint(
        id=stable_id("test", key),
        text=text,
        dense=[rng.uniform(-1, 1) for _ in range(DIM)],
        sparse=sparse_vector(text),
        payload=payload or {},
    )


@pytest.fixture
def store(tmp_path: Path) -> VectorStore:
    vs = VectorStore(tmp_path / "qdrant", None, dimension=DIM, lock_timeout=5.0)
    vs.ensure_collection()
    return vs


@pytest.fixture(params=["edge", "local", "in-memory"])
def backend(request, tmp_path: Path) -> VectorStore:
    """The same contract on each backend that runs here: the embedded Edge shard, the former local
    mode (the migration's source) and the server path."""
    if request.param == "edge":
        vs = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5.0)
    elif request.param == "local":
        vs = VectorStore(tmp_path / "qdrant", None, dimension=DIM, lock_timeout=5.0)
    else:
        vs = VectorStore(None, ":memory:", dimension=DIM)
    vs.ensure_collection()
    return vs


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    return dot / (sum(x * x for x in a) ** 0.5 * sum(y * y for y in b) ** 0.5)


def run_python(code: str, *args: str, **popen) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    return subprocess.Popen([sys.executable, "-c", code, *args], text=True, env=env, **popen)


def test_upsert_count_with_filters(backend: VectorStore) -> None:
    days = ["2026-01-01", "2026-01-05", "2026-02-01"]
    points = [
        random_point(f"p{i}", f"text {i}", {"tier": tier, "date": day, "priority": prio, "session_id": f"s{i % 2}"})
        for i, (tier, day, prio) in enumerate(
            [("messages", days[0], "high"), ("messages", days[1], "low"), ("observations", days[2], "medium")]
        )
    ]
    backend.upsert(points)
    backend.upsert(points)  # idempotent: same ids
    assert backend.count() == 3
    assert backend.count({"tier": "messages"}) == 2
    assert backend.count({"date_gte": "2026-01-02", "date_lte": "2026-01-31"}) == 1
    assert backend.count({"priority": ["high", "medium"]}) == 2
    assert backend.count({"session_id": "s0", "tier": "messages", "priority": None}) == 1


def test_missing_or_changed_skips_unchanged_content(backend: VectorStore) -> None:
    a, b = random_point("a", "alpha text"), random_point("b", "beta text")
    backend.upsert([a, b])
    c_id = stable_id("test", "c")
    wanted = {a.id: content_hash("alpha text"), b.id.upper(): content_hash("beta text, edited"), c_id: "x"}
    assert backend.missing_or_changed(wanted) == {b.id.upper(), c_id}
    assert backend.missing_or_changed({}) == set()


def test_scroll_set_payload_and_delete(backend: VectorStore) -> None:
    points = [random_point(f"s{i}", f"scroll text {i}", {"tier": "messages"}) for i in range(300)]
    backend.upsert(points)
    scrolled = list(backend.scroll_all(with_vectors=True))
    assert {p.id for p in scrolled} == {p.id for p in points}
    first = next(p for p in scrolled if p.id == points[0].id)
    assert first.text == "scroll text 0" and first.payload["content_hash"] == content_hash("scroll text 0")
    assert cosine(first.dense, points[0].dense) == pytest.approx(1.0, abs=1e-5)  # same direction
    assert first.sparse is not None and first.sparse[0] == points[0].sparse[0]
    backend.set_payload([points[0].id, points[1].id], {"tier": "archived"})
    assert [p.id for p in backend.scroll_all(payload_filter={"tier": "archived"})] != []
    assert backend.count({"tier": "archived"}) == 2
    backend.delete([points[0].id])
    assert backend.count() == 299


def test_dimension_mismatch_explains_the_rebuild(store: VectorStore, tmp_path: Path) -> None:
    other = VectorStore(tmp_path / "qdrant", None, dimension=DIM * 2)
    with pytest.raises(ServiceError, match="embedding model changed.*delete the collection"):
        other.ensure_collection()


def test_session_holds_the_lock_for_several_operations(store: VectorStore, tmp_path: Path) -> None:
    impatient = VectorStore(tmp_path / "qdrant", None, dimension=DIM, lock_timeout=0.3)
    with store.session() as s:
        s.upsert([random_point("x", "x text")])
        with pytest.raises(StoreLockedError, match="stayed locked"):
            impatient.count()
        assert s.count() == 1
    assert impatient.count() == 1


def test_a_client_outside_the_lock_is_waited_for(store: VectorStore, tmp_path: Path) -> None:
    outsider = QdrantClient(path=str(tmp_path / "qdrant"))
    impatient = VectorStore(tmp_path / "qdrant", None, dimension=DIM, lock_timeout=0.5)
    try:
        with pytest.raises(StoreLockedError, match="held open by another process"):
            impatient.count()
    finally:
        outsider.close()
    assert impatient.count() == 0


HOLD_LOCK = """
import sys, time
from pathlib import Path
from memory_pipeline.resources.vectors.vector_store import VectorStore
with VectorStore(Path(sys.argv[1]), None, dimension=8).session():
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def test_a_process_holding_the_store_past_the_timeout_locks_others_out(store: VectorStore, tmp_path: Path) -> None:
    holder = run_python(HOLD_LOCK, str(tmp_path / "qdrant"), "20", stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(StoreLockedError, match="locked"):
            VectorStore(tmp_path / "qdrant", None, dimension=DIM, lock_timeout=0.5).count()
    finally:
        holder.kill()
        holder.wait()
    assert store.count() == 0  # the lock died with the holder


CONCURRENT_UPSERT = """
import random, sys
from pathlib import Path
from memory_pipeline.models import stable_id
from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.resources.vectors.vector_store import StorePoint, VectorStore
from memory_pipeline.stages.index.sparse import sparse_vector
worker = sys.argv[2]
store = VectorStore(Path(sys.argv[1]), None, dimension=8, lock_timeout=120)
store.ensure_collection()
rng = random.Random(worker)
for batch in range(10):
    texts = [f"worker {worker} batch {batch} point {i}" for i in range(20)]
    store.upsert([
        StorePoint(id=stable_id(t), text=t, dense=[rng.random() for _ in range(8)], sparse=sparse_vector(t))
        for t in texts
    ])
print(store.count())
"""


def test_four_processes_upsert_into_one_store_at_once(tmp_path: Path) -> None:
    path = tmp_path / "shared-qdrant"
    workers = [run_python(CONCURRENT_UPSERT, str(path), str(w), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
               for w in range(4)]  # fmt: skip
    results = [w.communicate(timeout=300) for w in workers]
    for worker, (out, err) in zip(workers, results):
        assert worker.returncode == 0, err
    assert VectorStore(path, None, dimension=DIM).count() == 800


def test_a_missing_collection_counts_zero_but_reads_are_a_service_error(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "empty", None, dimension=DIM)
    assert store.count() == 0
    with pytest.raises(ServiceError, match="Qdrant operation on .* failed"):
        list(store.scroll_all())


def test_point_ids_must_be_uuids() -> None:
    with pytest.raises(ValueError, match="UUID"):
        StorePoint(id="not-a-uuid", text="x")
