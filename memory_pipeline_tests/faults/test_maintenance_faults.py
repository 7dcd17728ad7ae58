"""Maintenance under faults: killed at any point and run again, or two runs at once, it ends where
one clean run ends: every source kept, no fact folded twice, nothing counted twice."""

from __future__ import annotations

import pytest

from memory_pipeline.resources.vectors.stores import workspace_store
from memory_pipeline_tests.faults.harness import (
    DAYS,
    Workspaces,
    emit_inputs,
    ingest_here,
    kill9,
    pause_env,
    run_cli,
    start_cli,
    using_workspace,
    wait_for_file,
)

pytestmark = pytest.mark.slow
NO_MERGE_AT_WRITE = {"MEMORY_DEDUP_SIMILARITY": "1.01"}  # leave every merge to maintenance
LOOSE = {"MEMORY_DEDUP_SIMILARITY": "0.7"}  # the 1-layer test model: make near-duplicates likely


def merge_state(ws) -> list[tuple]:
    with using_workspace(ws):
        store = workspace_store(ws.state, None, dimension=384, lock_timeout=30)
        points = list(store.scroll_all(payload_filter={"tier": "observations"}))
    return sorted((p.id, p.payload.get("merged_into"), p.payload.get("mentions"),
                   tuple(sorted(s["id"] for s in p.payload.get("sources") or []))) for p in points)


def ingested(workspaces, name, inputs):
    ws = workspaces.new(name)
    emit_inputs(ws, inputs)
    assert ingest_here(ws, **NO_MERGE_AT_WRITE).success
    return ws


@pytest.fixture(scope="module")
def clean_merged(tmp_path_factory, small_inputs):
    """What one clean maintenance run leaves: built once for the module's tests (the run is
    deterministic for the same input), each compares its own workspace with it."""
    made = Workspaces(tmp_path_factory.mktemp("maintenance-clean"))
    try:
        ws = ingested(made, "clean", small_inputs)
        done = run_cli(ws, "maintain", "--date", DAYS[-1], "--json", **LOOSE)
        assert done.returncode == 0, done.stderr
        state = merge_state(ws)
        assert any(row[2] for row in state), "the input should hold near-duplicates for this test to mean anything"
        yield state
    finally:
        made.stop_all()


# between the kept memories and the folded facts; before the merged facts' vectors are dropped
@pytest.mark.parametrize("point", ["maintenance:kept", "maintenance:compact"])
def test_kill_9_mid_maintenance_then_rerun_equals_a_clean_run(point, workspaces, small_inputs, clean_merged, tmp_path):
    ws = ingested(workspaces, "killed", small_inputs)
    flag = tmp_path / "paused.flag"
    proc = start_cli(ws, "maintain", "--date", DAYS[-1], **LOOSE, **pause_env(point, flag))
    wait_for_file(flag, proc)
    kill9(proc)
    again = run_cli(ws, "maintain", "--date", DAYS[-1], "--json", **LOOSE)
    assert again.returncode == 0, again.stderr
    assert merge_state(ws) == clean_merged


def test_two_maintenance_runs_at_once(workspaces, small_inputs, clean_merged):
    ws = ingested(workspaces, "twice", small_inputs)
    procs = [start_cli(ws, "maintain", "--date", DAYS[-1], **LOOSE) for _ in range(2)]
    results = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    assert merge_state(ws) == clean_merged
