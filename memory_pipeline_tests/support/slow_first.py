"""The slowest test files run first, so that xdist's workers finish together.

Under `--dist loadfile` a worker takes whole files, and xdist queues the files with the most tests
first: a file holding one long test (the PostgreSQL deployment, 1 test, 90 s and more) came last
and ran alone while the other worker sat idle. Here the files measured slowest (SLOW_FILES, the
seconds of their tests summed from `pytest --durations=0`, slowest first) are collected first and
xdist keeps the collected order; every other file follows in its usual order. The list only orders
the files: a file missing from it, or listed and gone, runs the same tests.
"""

from __future__ import annotations

import pytest

# Seconds per file in a full run on the shared two-core machine at load 10-15 (2026-11-27; every
# figure inflated alike: only the order counts), from the times of the tests' temporary folders and
# the slowest durations; files under about 40 s there keep their usual order.
SLOW_FILES = {
    "memory_pipeline_tests/faults/test_maintenance_faults.py": 630,
    "memory_pipeline_tests/deploy/test_postgres_instance.py": 400,
    "memory_pipeline_tests/faults/test_disk_full.py": 290,
    "memory_pipeline_tests/faults/test_delivery.py": 290,
    "memory_pipeline_tests/faults/test_redis_faults.py": 250,
    "memory_pipeline_tests/ui/test_dagster_ui.py": 230,
    "memory_pipeline_tests/e2e/test_demo.py": 220,
    "memory_pipeline_tests/faults/test_kill.py": 210,
    "memory_pipeline_tests/faults/test_redis_url_faults.py": 200,
    "memory_pipeline_tests/cli/test_import_history.py": 200,
    "memory_pipeline_tests/cli/test_services_cli.py": 180,
    "memory_pipeline_tests/defs/test_friction_defs.py": 160,
    "memory_pipeline_tests/faults/test_llm_faults.py": 150,
    "memory_pipeline_tests/defs/test_observe_assets.py": 140,
    "memory_pipeline_tests/faults/test_store_faults.py": 120,
    "memory_pipeline_tests/faults/test_kill_promotion.py": 110,
    "memory_pipeline_tests/defs/test_lineage_graph.py": 100,
    "memory_pipeline_tests/resources/test_onnx_embedder.py": 100,
    "memory_pipeline_tests/ui/test_partitions_reload.py": 100,
    "memory_pipeline_tests/resources/test_snapshots.py": 90,
    "memory_pipeline_tests/e2e/test_trace.py": 90,
    "memory_pipeline_tests/cli/test_status.py": 80,
    "memory_pipeline_tests/defs/test_reflect_backfill.py": 80,
    "memory_pipeline_tests/cli/test_hook_windows.py": 70,
    "memory_pipeline_tests/cli/test_cli.py": 60,
    "memory_pipeline_tests/e2e/test_merged_sources.py": 50,
    "memory_pipeline_tests/cli/test_import.py": 50,
    "memory_pipeline_tests/defs/test_new_code_version.py": 50,
}


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist: keep the collected order of the files
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The listed files first, slowest first; each file's tests together and in their own order."""
    items.sort(key=lambda item: -SLOW_FILES.get(item.nodeid.split("::", 1)[0], 0.0))
