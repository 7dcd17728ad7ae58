"""`bench recall --speed --workdir`: a size's workspace is filled once, kept, and measured again without
filling it (the 1M fill takes 20 minutes; its latency is what the next run wants)."""

from __future__ import annotations

import pytest

from benchmarks.recall_speed import bench_recall_speed

pytestmark = pytest.mark.slow


def test_a_kept_workspace_is_measured_again_without_a_second_fill(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMORY_WORKSPACE", str(tmp_path / "unused"))  # the bench names its own; restored after
    first = bench_recall_speed([300], queries=8, workdir=tmp_path / "kept")["rows"][0]
    shard = tmp_path / "kept" / "points-300" / "state" / "vectors"
    built = {p.name for p in (shard / "segments").iterdir()}
    second = bench_recall_speed([300], queries=8, workdir=tmp_path / "kept")["rows"][0]
    assert first["fill_s"] > 0 and second["fill_s"] is None
    assert first["cold_hits"] == second["cold_hits"] > 0 and second["warm_p95_ms"] > 0
    assert {p.name for p in (shard / "segments").iterdir()} == built  # the same segments, nothing written again
