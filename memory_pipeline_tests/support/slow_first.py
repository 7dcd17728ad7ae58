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

# Seconds per file (setup + call + teardown summed from `--durations=0`) in a full run on the shared
# two-core machine at load 10-19 (2026-11-27; every figure inflated alike: only the order counts);
# files under 45 s there keep their usual order.
SLOW_FILES = {
    "memory_pipeline_tests/faults/test_maintenance_faults.py": 718,
    "memory_pipeline_tests/faults/test_delivery.py": 349,
    "memory_pipeline_tests/faults/test_redis_faults.py": 306,
    "memory_pipeline_tests/deploy/test_postgres_instance.py": 298,
    "memory_pipeline_tests/faults/test_disk_full.py": 294,
    "memory_pipeline_tests/faults/test_kill.py": 237,
    "memory_pipeline_tests/faults/test_redis_url_faults.py": 232,
    "memory_pipeline_tests/e2e/test_ledger_e2e.py": 211,
    "memory_pipeline_tests/cli/test_import_history.py": 210,
    "memory_pipeline_tests/e2e/test_mcp_claude_code.py": 190,
    "memory_pipeline_tests/cli/test_services_cli.py": 185,
    "memory_pipeline_tests/ui/test_dagster_ui.py": 184,
    "memory_pipeline_tests/faults/test_store_faults.py": 179,
    "memory_pipeline_tests/faults/test_llm_faults.py": 169,
    "memory_pipeline_tests/clients/test_import_recall.py": 138,
    "memory_pipeline_tests/defs/test_observe_assets.py": 137,
    "memory_pipeline_tests/e2e/test_demo.py": 123,
    "memory_pipeline_tests/faults/test_kill_promotion.py": 109,
    "memory_pipeline_tests/resources/test_onnx_embedder.py": 92,
    "memory_pipeline_tests/flows/test_mcp_server.py": 91,
    "memory_pipeline_tests/e2e/test_trace.py": 89,
    "memory_pipeline_tests/defs/test_reflect_backfill.py": 82,
    "memory_pipeline_tests/cli/test_status.py": 81,
    "memory_pipeline_tests/defs/test_lineage_graph.py": 77,
    "memory_pipeline_tests/ui/test_partitions_reload.py": 72,
    "memory_pipeline_tests/cli/test_hook_windows.py": 69,
    "memory_pipeline_tests/bench/test_soak.py": 65,
    "memory_pipeline_tests/cli/test_cli.py": 59,
    "memory_pipeline_tests/cli/test_hook_recovery.py": 54,
    "memory_pipeline_tests/cli/test_import.py": 48,
    "memory_pipeline_tests/e2e/test_merged_sources.py": 48,
}


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist: keep the collected order of the files
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The listed files first, slowest first; each file's tests together and in their own order."""
    items.sort(key=lambda item: -SLOW_FILES.get(item.nodeid.split("::", 1)[0], 0.0))
