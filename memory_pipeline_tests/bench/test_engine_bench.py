"""`bench engine`'s two engines answer the same query shape: Qdrant Edge and the recall index find a
point by its own vector and words within its project only, and an Edge writer killed with SIGKILL
mid-batch loses none of the points it acknowledged. The shipped shard config is what it says, and the
cold child's memory figure is its own."""

from __future__ import annotations

import json
import resource

import numpy as np
import pytest

pytest.importorskip("qdrant_edge")

from benchmarks import engine, engine_edge, engine_sides  # noqa: E402
from benchmarks.engine import kill_during_write  # noqa: E402
from benchmarks.engine_data import Probe, query_terms, rows  # noqa: E402
from memory_pipeline.resources.vectors.edge_store import SEGMENT_KB  # noqa: E402
from memory_pipeline.resources.vectors.recall_index import RecallIndex  # noqa: E402

DIM = 384


def _probe(row) -> Probe:
    words = " ".join(row.text.split()[:6])
    return Probe(words, row.dense, query_terms(words), row.payload["project"])


def test_both_engines_find_a_point_by_its_vector_within_its_project(tmp_path):
    points = next(rows(600, DIM, seed=5, batch=600))
    shard = engine_edge.create(tmp_path / "edge", DIM, engine_edge.Knobs(indexing_threshold_kb=1,
                                                                          full_scan_threshold=10))
    engine_edge.upsert(shard, engine_sides.edge_points(points))
    shard.optimize()
    assert shard.info().points_count == 600
    index = RecallIndex.from_columns([r.id for r in points], [r.payload for r in points],
                                     np.stack([r.dense for r in points]))
    project_of = {r.id: r.payload["project"] for r in points}
    for row in points[:20]:
        probe = _probe(row)
        for hits in (engine_sides.edge_query(shard, probe), engine_sides.today_query(index, probe),
                     engine_edge.hybrid_rrf(shard, probe.dense.tolist(), probe.terms, probe.project)):
            assert hits[0] == row.id
            assert len(hits) == 10 and {project_of[h] for h in hits} == {row.payload["project"]}
    shard.close()


def test_edge_writer_killed_mid_batch_keeps_every_acknowledged_point(tmp_path):
    outcome = kill_during_write("edge", tmp_path / "edge")
    assert outcome["acknowledged"] >= 3000  # six 500-point batches were acknowledged before the kill
    assert outcome["held"] == outcome["acknowledged"] and outcome["lost"] == 0


def test_shipped_shard_maps_its_vectors_and_answers_within_the_project(tmp_path):
    """The product's config (`edge_store.shard_config`, which `engine_edge.shipped` returns): float and
    int8 vectors memory-mapped (Cold), the segment cap and one indexing thread persisted, and the
    hybrid query still right after the HNSW build."""
    points = next(rows(600, DIM, seed=7, batch=600))
    shard = engine_edge.create(tmp_path / "edge", DIM, engine_edge.KNOBS["shipped"])
    engine_edge.upsert(shard, engine_sides.edge_points(points))
    shard.optimize()
    row = points[3]
    assert engine_sides.edge_query(shard, _probe(row))[0] == row.id
    shard.close()
    saved = json.loads((tmp_path / "edge" / "edge_config.json").read_text())
    dense = saved["vectors"][engine_edge.DENSE]
    assert dense["memory"] == "cold" and dense["quantization_config"]["turbo"] == {"memory": "cold", "bits": "bits4"}
    assert saved["optimizers"]["max_segment_size"] == SEGMENT_KB
    assert saved["hnsw_config"]["max_indexing_threads"] == 1


def test_cold_child_reports_its_own_peak_not_its_parents(tmp_path):
    """Linux keeps ru_maxrss across fork + exec: a child of a process that once held N MB reports N MB.
    The cold child reads VmHWM, so a parent's 600 MB is not in its figure."""
    held = bytearray(600 * 1024 * 1024)
    held[::4096] = b"\1" * len(held[::4096])  # touch every page
    parent_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    folder = tmp_path / "edge"
    shard = engine_edge.create(folder, DIM, engine_edge.Knobs())
    engine_edge.upsert(shard, engine_sides.edge_points(next(rows(200, DIM, seed=3, batch=200))))
    shard.close()
    del held
    figures = engine._cold("edge", folder)
    assert parent_peak >= 600 and 0 < figures["rss_mb"] < parent_peak - 300
    assert figures["first_hits"] == 10 and figures["anon_mb"] > 0
