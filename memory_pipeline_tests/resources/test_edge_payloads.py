"""The Edge shard's payloads beside it (`vectors.payloads.sqlite`): the shard holds the fields its filters use,
the table every point's whole payload; a shard of before the table fills it at its next open."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memory_pipeline.errors import BadInputError, ServiceError
from memory_pipeline.models import content_hash
from memory_pipeline.resources.vectors.edge_payloads import decode, table_path
from memory_pipeline.resources.vectors.edge_store import SHARD_FIELDS, EdgeStore
from memory_pipeline_tests.resources.test_vector_store import DIM, random_point


def turns(n: int = 6):
    return [random_point(f"t{i}", f"turn {i}: the deploy failed on a missing REDIS_URL",
                         {"tier": "messages", "date": f"2026-11-0{1 + i % 3}", "project": "orders-api",
                          "session_id": f"s{i % 2}", "role": "user", "message": f"raw message {i}",
                          "source_message_ids": [f"m{i}"], "stale": False}) for i in range(n)]


def in_shard(store: EdgeStore) -> dict[str, dict]:
    """id → the payload the shard itself holds."""
    with store.session():
        ids = [r.id for r in store.records()]
        return {str(r.id): dict(r.payload or {}) for r in store.shard.retrieve(ids, with_payload=True,
                                                                               with_vector=False)}


def rows(path: Path) -> dict[str, dict]:
    with sqlite3.connect(path) as db:
        return {pid: decode(payload) for pid, payload in db.execute("SELECT id, payload FROM payloads")}


def test_the_shard_holds_its_filtered_fields_and_the_table_beside_it_each_whole_payload(tmp_path: Path):
    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    points = turns()
    store.upsert(points)
    held = in_shard(store)
    assert len(held) == len(points)
    assert all(set(payload) <= set(SHARD_FIELDS) and {"tier", "date", "project"} <= set(payload)
               for payload in held.values())  # no text, message, role or content hash in the shard
    table = rows(table_path(store.path))
    assert table.keys() == held.keys()
    read = {p.id: p for p in store.retrieve([p.id for p in points])}
    for point in points:
        got = read[point.id]
        assert got.text == point.text and got.payload["message"] == point.payload["message"]
        assert got.payload["content_hash"] == content_hash(point.text) == table[point.id]["content_hash"]
    assert store.payloads([points[0].id])[points[0].id]["role"] == "user"
    some = list(store.scroll_all(payload_filter={"session_id": "s1"}, fields=["message", "date"]))
    assert sorted(p.payload["message"] for p in some) == ["raw message 1", "raw message 3", "raw message 5"]
    assert all(set(p.payload) == {"message", "date"} for p in some)


def test_set_payload_and_delete_reach_the_table(tmp_path: Path):
    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    points = turns()
    store.upsert(points)
    store.set_payload([points[0].id], {"stale": True, "merged_into": "t5"})
    got = store.retrieve([points[0].id])[0].payload
    assert got["stale"] is True and got["merged_into"] == "t5" and got["message"] == "raw message 0"
    assert in_shard(store)[points[0].id]["merged_into"] == "t5" and "stale" not in in_shard(store)[points[0].id]
    assert store.count({"merged_into": "t5"}) == 1
    store.delete([points[1].id])
    assert points[1].id not in rows(table_path(store.path)) and store.count() == len(points) - 1


def test_a_shard_written_before_the_table_fills_it_at_its_next_open(tmp_path: Path):
    from qdrant_edge import UpdateOperation

    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    points = turns()
    store.upsert(points)
    whole = {p.id: p.payload for p in store.retrieve([p.id for p in points])}
    with store.session():  # as a former version wrote it: every payload whole in the shard, no table
        for pid, payload in whole.items():
            store._update(UpdateOperation.overwrite_payload([pid], payload))
    store.table.reset()
    assert not table_path(store.path).exists()

    reopened = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    assert {p.id: p.payload for p in reopened.retrieve(list(whole))} == whole
    assert reopened.table.complete() and rows(table_path(store.path)) == whole
    assert reopened.count({"project": "orders-api", "date_gte": "2026-11-02"}) == 4


def test_a_table_cut_short_is_filled_again_and_a_new_shard_starts_an_empty_one(tmp_path: Path):
    from qdrant_edge import UpdateOperation

    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    store.upsert(turns())
    whole = {p.id: p.payload for p in store.retrieve([p.id for p in turns()])}
    with store.session():  # a shard of before the table: every payload whole in the shard
        for pid, payload in whole.items():
            store._update(UpdateOperation.overwrite_payload([pid], payload))
    with sqlite3.connect(table_path(store.path)) as db:  # a fill killed before its end: not marked complete
        db.execute("DELETE FROM meta")
        db.execute("DELETE FROM payloads WHERE id IN (SELECT id FROM payloads LIMIT 3)")
    reopened = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    assert reopened.count() == 6 and reopened.table.complete() and len(rows(table_path(store.path))) == 6
    assert rows(table_path(store.path)) == whole

    import shutil

    shutil.rmtree(store.path)  # the shard deleted by hand: the next is created with an empty table
    fresh = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    fresh.upsert(turns(2))
    assert fresh.count() == 2 and len(rows(table_path(store.path))) == 2


def test_a_filter_on_a_field_the_shard_does_not_hold_is_refused(tmp_path: Path):
    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    store.upsert(turns())
    with pytest.raises(BadInputError, match="cannot filter on created_ts, role"):
        store.count({"role": "user", "created_ts_gte": 0})


def test_the_messages_an_observation_cites_are_found_in_the_table_and_only_while_the_shard_holds_them(tmp_path: Path):
    from memory_pipeline.resources.vectors.edge_payloads import encode

    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    points = turns()
    fact = random_point("f1", "the user wants uv", {"tier": "observations", "session_id": "s0",
                                                      "source_message_ids": ["m0", "m2"]})
    store.upsert([*points, fact])
    wanted = [("s0", "m0"), ("s0", "m2"), ("s1", "m0"), ("s0", "m9")]  # m0 is s0's; s1 has no m0; no m9
    assert store.messages_citing(wanted) == {("s0", "m0"): points[0].id, ("s0", "m2"): points[2].id}
    store.delete([points[2].id])
    assert store.messages_citing(wanted) == {("s0", "m0"): points[0].id}
    with sqlite3.connect(table_path(store.path)) as db:  # a row left by a kill between the shard's delete and
        db.execute("INSERT INTO payloads (id, payload, cites) VALUES (?, ?, ?)",  # the table's
                   (points[2].id, encode(points[2].payload), "s0\x1fm2"))
    assert store.messages_citing(wanted) == {("s0", "m0"): points[0].id}
    store.set_payload([points[0].id], {"source_message_ids": ["m7"]})
    assert store.messages_citing([("s0", "m0"), ("s0", "m7")]) == {("s0", "m7"): points[0].id}


def test_dense_hits_are_scored_from_the_tables_float16_copies_of_the_vectors(tmp_path: Path):
    import numpy as np

    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    points = turns()
    store.upsert(points)
    query = np.asarray(points[3].dense, dtype=np.float64) + 0.1
    exact = {p.id: float(np.dot(p.dense, query) / np.linalg.norm(p.dense) / np.linalg.norm(query)) for p in points}
    with store.session():
        scores = store.dense_scores([p.id for p in points] + ["not-there"], query.tolist())
    assert scores.keys() == exact.keys()
    assert scores == pytest.approx(exact, abs=1e-3)  # float16: within ~1e-4 of the cosine
    config = json.loads((store.path / "edge_config.json").read_text())
    assert "turbo" in json.dumps(config["vectors"]["dense"]["quantization_config"]).lower()  # the walk's 4-bit copies


def test_a_table_made_before_it_kept_the_vectors_gets_them_at_the_next_open(tmp_path: Path):
    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    points = turns()
    store.upsert(points)
    with sqlite3.connect(table_path(store.path)) as db:  # as the table's first version made it
        db.execute("ALTER TABLE payloads DROP COLUMN dense")
        db.execute("DELETE FROM meta WHERE key = 'vectors'")
    reopened = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    with reopened.session():
        scores = reopened.dense_scores([p.id for p in points], points[0].dense)
    assert len(scores) == len(points) and scores[points[0].id] == pytest.approx(1.0, abs=1e-3)
    assert reopened.table.complete("vectors") and rows(table_path(store.path)) == {
        p.id: p.payload for p in reopened.retrieve([p.id for p in points])}


def test_a_shard_written_with_a_table_is_not_filled_from_its_filter_fields_when_the_table_is_gone(tmp_path: Path):
    """The shard keeps only SHARD_FIELDS: filled from it, every text would be empty (before: silently so)."""
    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    store.upsert(turns())
    store.table.reset()
    reopened = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    with pytest.raises(ServiceError, match="payload table beside the vector shard .* is missing.*rebuilt"):
        reopened.count()
    assert "missing" in reopened.damage()  # what `ingest`'s store check finds, and rebuilds
