"""The Edge shard beyond the store contract (test_vector_store.py runs that on it): the former week
stores migrated on first open (and after a kill -9 mid-migration), `store move` to a server and
back, a nearly full disk, and one opener at a time."""

from __future__ import annotations

import math
import signal
import subprocess
import uuid
from pathlib import Path

import pytest

from memory_pipeline.errors import BadInputError, DiskFullError, StoreLockedError, is_disk_full_message
from memory_pipeline.flows.store_move import move_points, move_store
from memory_pipeline.models import content_hash
from memory_pipeline.config import Settings
from memory_pipeline.resources.vectors import edge_store
from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.resources.vectors.stores import legacy_store, workspace_store
from memory_pipeline.resources.vectors.vector_store import VectorStore
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.resources.test_vector_store import DIM, random_point, run_python

DAYS = ["2026-11-16", "2026-11-23", "2026-12-01"]


def dated(n: int):
    day = DAYS[n % len(DAYS)]
    return random_point(f"p{n}", f"note {n} about redis and qdrant on {day}",
                        {"tier": "messages", "date": day, "project": f"proj{n % 2}", "source_message_ids": [f"m{n}"]})


def contents(store) -> dict[str, tuple[str, dict]]:
    """id → (content hash, payload) of every point."""
    return {p.id: (content_hash(p.text), p.payload) for p in store.scroll_all()}


def unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector]


def test_former_week_stores_migrate_on_first_open_and_are_kept_aside(tmp_path: Path):
    state = tmp_path / "state"
    old = legacy_store(state, dimension=DIM, lock_timeout=5)
    points = [dated(n) for n in range(30)]
    old.upsert(points)
    assert len(old.shards()) == 3
    before = contents(old)

    store = workspace_store(state, None, dimension=DIM, lock_timeout=5)
    assert store.count() == 30  # the first open migrates
    assert contents(store) == before
    assert not (state / "qdrant").exists() and (state / "qdrant.before-edge").is_dir()
    assert not (state / "vectors.migrating").exists()
    assert store.keyword_stats.read()[0] == 30 and not (state / "vectors.migrating.bm25.json").exists()
    kept = legacy_store(state, dimension=DIM)  # the old stores, renamed aside, still hold everything
    kept.path = state / "qdrant.before-edge"
    assert contents(kept) == before
    moved = {p.id: p for p in store.retrieve([p.id for p in points[:3]], with_vectors=True)}
    for point in points[:3]:
        assert moved[point.id].dense == pytest.approx(unit(point.dense), abs=1e-5)
        assert moved[point.id].sparse[0] == point.sparse[0]
    assert store.count({"project": "proj1", "date_gte": "2026-11-23"}) == sum(
        1 for n in range(30) if n % 2 and DAYS[n % 3] >= "2026-11-23")


def test_the_recall_index_of_a_workspace_not_yet_migrated_migrates_it_and_holds_every_point(tmp_path: Path):
    from memory_pipeline.resources.vectors.recall_index import load_index

    state = tmp_path / "state"
    legacy_store(state, dimension=DIM, lock_timeout=5).upsert([dated(n) for n in range(12)])
    index = load_index(workspace_store(state, None, dimension=DIM, lock_timeout=5))
    assert sorted(index.ids) == sorted(dated(n).id for n in range(12)) and (state / "vectors").is_dir()


MIGRATE = """
import sys
from pathlib import Path
from memory_pipeline.resources.vectors import edge_migration
from memory_pipeline.resources.vectors.stores import workspace_store
edge_migration.CHUNK = 50

from memory_pipeline.resources.vectors.edge_store import EdgeStore
upsert = EdgeStore.upsert
def slow(self, points):
    upsert(self, points)
    print("chunk", flush=True)
    import time; time.sleep(0.3)
EdgeStore.upsert = slow
print(workspace_store(Path(sys.argv[1]), None, dimension=8, lock_timeout=30).count(), flush=True)
"""


def test_a_migration_killed_half_way_is_completed_by_the_next_open(tmp_path: Path):
    state = tmp_path / "state"
    old = legacy_store(state, dimension=DIM, lock_timeout=5)
    old.upsert([dated(n) for n in range(400)])
    before = contents(old)
    child = run_python(MIGRATE, str(state), stdout=subprocess.PIPE)
    assert child.stdout.readline().strip() == "chunk"  # some points are in the new shard, not all
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert (state / "vectors.migrating").is_dir() and (state / "qdrant").is_dir()
    assert not (state / "vectors").exists()

    store = workspace_store(state, None, dimension=DIM, lock_timeout=30)
    assert store.count() == 400 and contents(store) == before
    assert not (state / "vectors.migrating").exists() and (state / "qdrant.before-edge").is_dir()


def test_a_shard_renamed_into_place_before_a_kill_is_verified_and_the_old_stores_move_aside(tmp_path: Path):
    """Killed between the two renames: the shard is in place and the week stores are still there."""
    state = tmp_path / "state"
    old = legacy_store(state, dimension=DIM, lock_timeout=5)
    old.upsert([dated(n) for n in range(20)])
    before = contents(old)
    staged = EdgeStore(state / "vectors", dimension=DIM, lock_timeout=5)
    staged.upsert([dated(n) for n in range(15)])  # the shard as the kill left it, short of five points
    store = workspace_store(state, None, dimension=DIM, lock_timeout=5)
    assert contents(store) == before and (state / "qdrant.before-edge").is_dir() and not (state / "qdrant").exists()


def test_store_move_to_a_server_and_back_keeps_every_point(tmp_path: Path):
    """The server path runs against Qdrant's in-memory engine (no server can run here)."""
    embedded = EdgeStore(tmp_path / "state" / "vectors", dimension=DIM, lock_timeout=5)
    embedded.upsert([dated(n) for n in range(25)])
    before = contents(embedded)
    server = VectorStore(None, ":memory:", dimension=DIM)
    moved = move_points(embedded, server)
    assert (moved.points, moved.written) == (25, 25) and contents(server) == before
    assert move_points(embedded, server).written == 0  # a repeated move writes nothing
    back = EdgeStore(tmp_path / "other" / "vectors", dimension=DIM, lock_timeout=5)
    assert move_points(server, back).points == 25 and contents(back) == before
    found = back.retrieve([dated(0).id], with_vectors=True)[0]
    assert found.dense == pytest.approx(unit(dated(0).dense), abs=1e-5)


def test_store_move_refuses_what_it_cannot_do(tmp_path: Path):
    ws = Workspace(tmp_path / "ws").create()
    with pytest.raises(BadInputError, match="already the embedded one"):
        move_store(ws, Settings.from_env().model_copy(update={"qdrant_url": None}), "embedded", DIM)
    with pytest.raises(BadInputError, match="Qdrant server URL"):
        move_store(ws, Settings.from_env().model_copy(update={"qdrant_url": None}), "qdrant.example", DIM)


def test_a_nearly_full_disk_stops_a_write_with_disk_full_not_sigbus(tmp_path: Path, monkeypatch):
    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    store.upsert([dated(0)])
    free = __import__("shutil").disk_usage(tmp_path).free
    monkeypatch.setattr(edge_store, "MIN_FREE_BYTES", free + (1 << 30))  # as if less than the margin were left
    with pytest.raises(DiskFullError, match=f"disk full at {tmp_path / 'vectors'}"):
        store.upsert([dated(1)])
    monkeypatch.undo()
    assert [p.id for p in store.scroll_all()] == [dated(0).id]  # nothing half written; reads still work
    # raised inside a Dagster step, the run's failure text is recognized, so ingest says its one line
    assert is_disk_full_message(f"DiskFullError: {DiskFullError(str(tmp_path / 'vectors'))}")


HOLD = """
import sys, time
from pathlib import Path
from memory_pipeline.resources.vectors.edge_store import EdgeStore
store = EdgeStore(Path(sys.argv[1]), dimension=8, lock_timeout=30)
with store.session():
    print("holding", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def test_openers_queue_on_the_shard_lock_and_an_impatient_one_fails_clearly(tmp_path: Path):
    path = tmp_path / "vectors"
    EdgeStore(path, dimension=DIM, lock_timeout=5).upsert([dated(0)])
    holder = run_python(HOLD, str(path), "3", stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "holding"
        with pytest.raises(StoreLockedError, match="stayed locked by another process"):
            EdgeStore(path, dimension=DIM, lock_timeout=0.3).count()
        patient = EdgeStore(path, dimension=DIM, lock_timeout=30)
        patient.upsert([dated(1)])  # waits for the holder's session to end, then writes
        assert holder.wait(timeout=30) == 0 and patient.count() == 2
    finally:
        holder.kill()


KEYWORD_TEXTS = [
    "[1 May 2026] We moved the Redis pool to 64 connections\n(after: what about the redis pool size)",
    "[2 May 2026] Pagination uses keyset on created_at for the orders API",
    "[3 May 2026] The redis cache keys expire after an hour, redis is shared by the workers and the api",
    "[4 May 2026] Deploys run on Fridays\n(after: when do deploys happen? the redis migration first)",
    "[5 May 2026] " + " ".join(["a long reply about the orders api and its pagination"] * 12),
]


def keyword_points():
    return [random_point(f"k{n}", text, {"tier": "messages", "role": "user", "message": text.split("\n")[0],
                                         "date": "2026-05-0%d" % (n + 1), "session_id": "s1"})
            for n, text in enumerate(KEYWORD_TEXTS)]


def test_the_shards_keyword_search_scores_as_the_recall_index_bm25(tmp_path: Path):
    """Stored values are each term's BM25 saturation (the borrowed tail at 0.7 a word, the shard's
    average length); Edge's IDF completes them: a keyword query scores every point as RecallIndex's
    textbook BM25 does."""
    from qdrant_edge import Query, QueryRequest, SparseVector

    from memory_pipeline.resources.vectors.recall_index import RecallIndex
    from memory_pipeline.stages.index.message_docs import keyword_counts
    from memory_pipeline.stages.index.sparse import token_id, tokenize

    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    points = keyword_points()
    store.upsert(points)
    index = RecallIndex(points)
    for query in ("redis pool", "orders api pagination", "redis deploys", "connections what"):
        terms = tokenize(query)
        expected = dict((index.ids[row], score) for row, score in index.sparse_search(terms, 10, None))
        ids = sorted({token_id(t) for t in terms})
        with store.session():
            hits = store.shard.query(QueryRequest(limit=10, query=Query.Nearest(
                SparseVector(ids, [1.0] * len(ids)), using=edge_store.SPARSE)))
        found = {str(h.id): h.score for h in hits}
        assert set(found) == set(expected), query
        for pid, score in expected.items():
            assert found[pid] == pytest.approx(score, rel=1e-4), (query, pid)
    documents, length = store.keyword_stats.read()
    lengths = [keyword_counts({**p.payload, "text": p.text})[1] for p in points]
    assert documents == len(points) and length == pytest.approx(sum(lengths))
    assert lengths[0] == pytest.approx(len(tokenize(KEYWORD_TEXTS[0].split("\n")[0])) + 0.7 * 4)  # the tail: about redis pool size


def test_a_shard_written_before_bm25_values_gets_them_at_its_next_open(tmp_path: Path):
    from memory_pipeline.stages.index.message_docs import keyword_counts
    from memory_pipeline.stages.index.sparse import keyword_vector

    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    points = keyword_points()
    store.upsert(points)
    right = {p.id: p.sparse for p in store.retrieve([p.id for p in points], with_vectors=True)}
    from qdrant_edge import PointVectors, SparseVector, UpdateOperation

    with store.session():  # the former values: the whole text's plain term counts
        store._update(UpdateOperation.update_vectors([
            PointVectors(p.id, {edge_store.SPARSE: SparseVector(list(p.sparse[0]), [1.0] * len(p.sparse[0]))})
            for p in points]))
    store.keyword_stats.path.unlink()
    with store.session():  # a shard made before the date index
        store._update(UpdateOperation.delete_field_index("date"))
    reopened = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    again = {p.id: p.sparse for p in reopened.retrieve([p.id for p in points], with_vectors=True)}
    assert again.keys() == right.keys()
    for pid, (indices, values) in right.items():
        assert again[pid][0] == indices and again[pid][1] == pytest.approx(values, rel=1e-5)
    counted = [keyword_counts({**p.payload, "text": p.text}) for p in points]
    average = sum(length for _, length in counted) / len(counted)
    assert right[points[0].id][1] == pytest.approx(keyword_vector(*counted[0], average)[1], rel=1e-5)
    assert reopened.keyword_stats.read()[0] == len(points)
    with reopened.session():
        assert {"date", "project", "tier"} <= set(reopened.shard.info().payload_schema)
    assert reopened.count({"date_gte": "2026-05-02", "date_lte": "2026-05-04"}) == 3


def index_memory(store: EdgeStore) -> dict[str, str]:
    """field → where its payload index lives ("Cold" on disk, "Pinned" in memory; "plain" for an index made
    without a placement, as a former version made them)."""
    from qdrant_edge import Memory

    with store.session():
        schema = store.shard.info().payload_schema
    def where(memory) -> str:
        return "Cold" if memory == Memory.Cold else "Pinned" if memory == Memory.Pinned else "plain"

    return {field: where(getattr(info.params, "memory", None)) for field, info in schema.items()}


def test_the_filtered_fields_indexes_live_in_memory_the_rest_on_disk_and_optimize_moves_a_former_shards(
        tmp_path: Path):
    from qdrant_edge import DatetimeIndexParams, KeywordIndexParams, Memory, PayloadSchemaType, UpdateOperation

    pinned = {"project", "scope", "tier", "merged_into", "date"}
    assert set(edge_store.PINNED_FIELDS) == pinned
    fresh = EdgeStore(tmp_path / "fresh", dimension=DIM, lock_timeout=5)
    fresh.upsert([dated(n) for n in range(6)])
    placed = index_memory(fresh)
    assert {f for f, where in placed.items() if where == "Pinned"} == pinned
    assert {f for f, where in placed.items() if where != "Pinned"} == set(placed) - pinned
    assert set(placed.values()) == {"Pinned", "Cold"} and placed["session_id"] == "Cold"

    former = EdgeStore(tmp_path / "former", dimension=DIM, lock_timeout=5)
    former.upsert([dated(n) for n in range(6)])
    with former.session():  # the indexes as former versions made them: plain, in memory, and all on disk
        for field in ("project", "session_id"):
            former.shard.update(UpdateOperation.delete_field_index(field))
            former.shard.update(UpdateOperation.create_field_index(field, PayloadSchemaType.Keyword))
        for field, params in (("tier", KeywordIndexParams), ("date", DatetimeIndexParams)):
            former.shard.update(UpdateOperation.delete_field_index(field))
            former.shard.update(UpdateOperation.create_field_index(field, params(memory=Memory.Cold)))
    before = index_memory(former)
    assert (before["session_id"], before["tier"], before["date"]) == ("plain", "Cold", "Cold")
    former.optimize()
    # a plain index is in memory already: a filtered field's stays as it was, any other's goes to the disk
    assert index_memory(former) == placed | {"project": "plain"}
    assert former.count({"project": "proj1"}) == 3 and former.count({"tier": "messages"}) == 6
    assert former.count({"date_gte": "2026-11-20", "date_lte": "2026-11-30"}) == 2  # its one day of the three


def keyword_index_types(store: EdgeStore) -> set[str]:
    """The BM25 index's kind in each of the shard's built segments ("Mmap": on disk, "ImmutableRam": in memory)."""
    import json

    found = set()
    for config in (store.path / "segments").glob("*/segment.json"):
        index = json.loads(config.read_text())["config"]["sparse_vector_data"][edge_store.SPARSE]["index"]
        if index["index_type"] != "MutableRam":  # the appendable segment's, before its build
            found.add(index["index_type"])
    return found


def test_the_bm25_index_lives_on_disk_and_a_former_shards_is_moved_at_optimize(tmp_path: Path, monkeypatch):
    """A fresh shard's keyword index is memory-mapped; one built in memory (Edge's default, before session
    16) is rebuilt on disk at the next optimize() after an open, and keyword search answers the same."""
    from qdrant_edge import Query, QueryRequest, SparseVector

    from memory_pipeline.stages.index.sparse import token_id, tokenize

    monkeypatch.setattr(edge_store, "INDEXING_KB", 1)  # 32 points of 8 dimensions: the points below are built
    points = [random_point(f"kw{n}", f"{KEYWORD_TEXTS[n % len(KEYWORD_TEXTS)]} note {n}", {"tier": "messages"})
              for n in range(80)]

    def keyword_hits(store: EdgeStore) -> list[tuple[str, float]]:
        found = []
        for query in ("redis pool", "orders api pagination", "note 7"):
            ids = sorted({token_id(t) for t in tokenize(query)})
            with store.session():
                found += [(str(h.id), round(h.score, 4)) for h in store.shard.query(QueryRequest(
                    limit=10, query=Query.Nearest(SparseVector(ids, [1.0] * len(ids)), using=edge_store.SPARSE)))]
        return found

    fresh = EdgeStore(tmp_path / "fresh", dimension=DIM, lock_timeout=5)
    fresh.upsert(points)
    fresh.optimize()
    assert keyword_index_types(fresh) == {"Mmap"}

    monkeypatch.setattr(edge_store, "KEYWORD_INDEX_MEMORY", "Pinned")  # as a former version built it
    former = EdgeStore(tmp_path / "former", dimension=DIM, lock_timeout=5)
    former.upsert(points)
    former.optimize()
    assert keyword_index_types(former) == {"ImmutableRam"}
    before = keyword_hits(former)
    assert len(before) == 30
    former.let_go()

    monkeypatch.setattr(edge_store, "KEYWORD_INDEX_MEMORY", "Cold")
    reopened = EdgeStore(tmp_path / "former", dimension=DIM, lock_timeout=5)
    assert keyword_index_types(reopened) == {"ImmutableRam"}  # the open writes the configuration, moves nothing
    reopened.optimize()
    assert keyword_index_types(reopened) == {"Mmap"}
    assert keyword_hits(reopened) == before == keyword_hits(fresh)
    assert reopened.count() == len(points)


def test_a_large_write_is_built_as_it_goes_in_capped_segments(tmp_path: Path, monkeypatch):
    """Every OPTIMIZE_EVERY points upserted build the appendable segment (so no build ever reads a whole
    big import at once), merges stop at SEGMENT_KB, the segments a build replaced leave the disk and the
    process's memory maps at once (flushed), and every point is still found by its own vector."""
    from qdrant_edge import Query, QueryRequest

    monkeypatch.setattr(edge_store, "INDEXING_KB", 1)  # 32 points of 8 dimensions
    monkeypatch.setattr(edge_store, "SEGMENT_KB", 4)  # 128 points
    monkeypatch.setattr(edge_store, "OPTIMIZE_EVERY", 100)
    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    points = [random_point(f"big{n}", f"note {n} of a long import", {"tier": "messages"}) for n in range(500)]
    segments = []
    with store.session():
        for start in range(0, len(points), 50):
            store.upsert(points[start:start + 50])
            info = store.shard.info()
            segments.append(info.segments_count)
            on_disk = {p.name for p in (store.path / "segments").iterdir() if p.is_dir()}
            maps = [line for line in Path("/proc/self/maps").read_text().splitlines() if str(store.path) in line]
            mapped = {line.split("/segments/")[1].split("/")[0] for line in maps if "/segments/" in line}
            assert len(on_disk) == info.segments_count and mapped <= on_disk, start
            assert not [line for line in maps if line.endswith("(deleted)")], start
        # a build at every 100 points (each a segment of its own: two would pass the cap), not one at the end
        assert segments == [1, 2, 2, 3, 3, 4, 4, 5, 5, 6]
        for point in points[::25]:
            hits = store.shard.query(QueryRequest(limit=1, query=Query.Nearest(point.dense, using=edge_store.DENSE)))
            assert [str(h.id) for h in hits] == [point.id]
    assert store.count() == len(points)


def test_a_shard_keyed_by_an_older_tokenize_is_re_keyed_at_its_next_open(tmp_path: Path):
    """`vectors.bm25.json` records the keyword terms' version (`sparse.KEYS_VERSION`); a shard whose file
    says another (or none: written before versions) gets every point's values made again, so a query
    for "planned" finds the turn that says "planning" once the stemmer undoes the doubled consonant."""
    import json

    from qdrant_edge import PointVectors, Query, QueryRequest, SparseVector, UpdateOperation

    from memory_pipeline.stages.index.sparse import KEYS_VERSION, token_id, tokenize

    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    points = keyword_points() + [random_point("plan", "we are planning the offsite", {
        "tier": "messages", "role": "user", "message": "we are planning the offsite", "date": "2026-05-09",
        "session_id": "s2"})]
    store.upsert(points)
    plan = points[-1].id
    assert json.loads(store.keyword_stats.path.read_text())["keys"] == KEYS_VERSION
    right = {p.id: p.sparse for p in store.retrieve([p.id for p in points], with_vectors=True)}
    stale = token_id("plann")  # the first stemmer's term for "planning"
    with store.session():  # the shard as the first stemmer keyed it
        store._update(UpdateOperation.update_vectors([
            PointVectors(plan, {edge_store.SPARSE: SparseVector([stale], [1.0])})]))
    store.keyword_stats.path.write_text(json.dumps({"documents": len(points), "length": 40.0}))  # no version

    def planned(opened: EdgeStore) -> list[str]:
        ids = sorted({token_id(t) for t in tokenize("planned offsite")})
        with opened.session():
            hits = opened.shard.query(QueryRequest(limit=3, query=Query.Nearest(
                SparseVector(ids, [1.0] * len(ids)), using=edge_store.SPARSE)))
        return [str(h.id) for h in hits]

    reopened = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    again = {p.id: p.sparse for p in reopened.retrieve([p.id for p in points], with_vectors=True)}
    assert again[plan][0] == right[plan][0] and stale not in again[plan][0]
    assert planned(reopened) == [plan]
    stats = json.loads(reopened.keyword_stats.path.read_text())
    assert stats["keys"] == KEYS_VERSION and stats["documents"] == len(points)  # counted afresh, not added
    with reopened.session():  # opened again at the current version: nothing re-keyed
        reopened._update(UpdateOperation.update_vectors([
            PointVectors(plan, {edge_store.SPARSE: SparseVector([stale], [1.0])})]))
    third = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    assert third.retrieve([plan], with_vectors=True)[0].sparse[0] == [stale]


def test_a_re_key_builds_the_segments_as_it_goes_not_once_at_the_end(tmp_path: Path):
    """Every re-keyed point moves to the appendable segment: one build at the end of a 1M-point re-key
    made a single 1M-point segment (14.5 GB RSS), so it builds every `build_every` points as upserts do."""
    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    points = [random_point(str(uuid.UUID(int=i + 1)), f"planning the offsite number {i}") for i in range(5000)]
    store.upsert(points)

    class Counted:  # the real shard, its builds counted
        def __init__(self, shard) -> None:
            self.shard, self.builds = shard, 0

        def optimize(self):
            self.builds += 1
            return self.shard.optimize()

        def __getattr__(self, name):
            return getattr(self.shard, name)

    with store.session():
        counted = Counted(store.shard)
        store._rekey(counted, build_every=2048)  # 5,000 points in batches of 2,048: built after 2,048 and 4,096
    assert counted.builds == 2
    assert store.count() == 5000 and store.retrieve([points[-1].id], with_vectors=True)[0].sparse[0]


@pytest.mark.parametrize("kind", ["edge", "local"])
def test_a_scroll_may_read_only_some_payload_fields(tmp_path: Path, kind: str):
    """A pass over every memory (the nightly staleness) reads the fields it needs, not every text."""
    store = (EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5) if kind == "edge"
             else VectorStore(tmp_path / "qdrant", None, dimension=DIM, lock_timeout=5.0))
    store.ensure_collection()
    store.upsert([random_point(str(uuid.UUID(int=i + 1)), f"a long memory text {i}",
                               {"tier": "observations", "date": "2026-11-0" + str(1 + i), "stale": False})
                  for i in range(5)])
    some = list(store.scroll_all(payload_filter={"tier": "observations"}, fields=["date", "stale"]))
    assert len(some) == 5 and all(set(p.payload) == {"date", "stale"} for p in some)
    whole = list(store.scroll_all(payload_filter={"tier": "observations"}))
    assert all({"date", "stale", "text", "tier"} <= set(p.payload) for p in whole)
