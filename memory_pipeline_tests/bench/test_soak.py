"""The soak benchmark on a tiny scale: it runs the real pipeline and reports what it promises."""

from __future__ import annotations

import pytest

from benchmarks.soak import bench_soak, slope_seconds_per_day
from memory_pipeline_tests.support.dagster_defs import definitions


def test_slope_is_zero_for_flat_days_and_the_growth_per_day_otherwise():
    assert slope_seconds_per_day([5.0, 5.0, 5.0]) == 0.0
    assert slope_seconds_per_day([10.0, 12.0, 14.0, 16.0]) == pytest.approx(2.0)
    assert slope_seconds_per_day([7.0]) == 0.0


@pytest.mark.slow
def test_a_small_soak_reports_days_stores_and_recall(tmp_path, monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    for name in ("MEMORY_WORKSPACE", "DAGSTER_HOME"):  # the bench points them at its own folder
        monkeypatch.setenv(name, str(tmp_path / "unused"))
    report = bench_soak(definitions, days=3, sessions_per_day=2, turns=6, queries=5, root=tmp_path)
    assert report["sessions"] == 6 and len(report["day_seconds"]) == 3
    assert report["stores"]["qdrant_points"] > 0 and 1 <= report["stores"]["qdrant_stores"] <= 2
    assert report["stores"]["bytes"]["observations"] > 0 and report["stores"]["redis_used_memory"] > 0
    assert report["recall"]["queries"] == 5 and 0 < report["recall"]["p50_ms"] <= report["recall"]["p95_ms"]
    assert report["peak_rss_mb"] > 0
    assert list(tmp_path.glob("mp-soak-*")) == []  # its workspace is removed afterwards
