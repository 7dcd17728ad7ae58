"""kill -9 of `memory-pipeline ingest` and of a promotion at named points, then a re-run.

After the re-run the workspace must equal a clean run of the same input: nothing lost (the
killed day is picked up again although its observation files exist) and nothing duplicated.
"""

from __future__ import annotations

import pytest

from memory_pipeline.resources.files.observation_files import load_observations
from memory_pipeline_tests.faults.compare import assert_same_state, read_state
from memory_pipeline_tests.faults.harness import (
    DAYS,
    emit_inputs,
    ingest_here,
    kill9,
    pause_env,
    start_cli,
    using_workspace,
    wait_for_file,
)

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("point", ["observe:before-write", "observe:after-write", "index:before-upsert"])
def test_kill_9_mid_ingest_then_rerun_equals_a_clean_run(point, workspaces, small_inputs, clean_small, tmp_path):
    ws = workspaces.new("killed")
    emit_inputs(ws, small_inputs)
    flag = tmp_path / "paused.flag"
    proc = start_cli(ws, "ingest", "--json", **pause_env(point, flag))
    wait_for_file(flag, proc)
    kill9(proc)
    assert proc.returncode == -9
    observed = len(load_observations(ws, DAYS[0]))
    if point == "index:before-upsert":
        assert observed == 10  # observed, logged and hot-listed, but not indexed
    else:
        assert observed == (0 if point == "observe:before-write" else 1)

    report = ingest_here(ws)
    assert report.success, report.as_dict()
    assert lock_waits(ws, DAYS[0]) == 0  # the dead run's observe lock was taken over, not waited on
    assert [d.day for d in report.days] == list(DAYS)  # the killed day runs again
    statuses = run_statuses(ws)
    assert "STARTED" not in statuses and statuses.count("FAILURE") == 1  # the killed run is closed, not left running
    with using_workspace(ws):
        assert_same_state(read_state(ws), clean_small)


def run_statuses(ws) -> list[str]:
    """The status of every run in the workspace's Dagster instance."""
    import dagster as dg

    with using_workspace(ws), dg.DagsterInstance.get() as instance:
        return [run.status.value for run in instance.get_runs()]


def lock_waits(ws, day: str) -> int:
    """The `lock_waits` metadata of the day's latest `observations` materialization."""
    import dagster as dg

    with using_workspace(ws), dg.DagsterInstance.get() as instance:
        records = instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey("observations"), asset_partitions=[day]), limit=1).records
        return records[0].asset_materialization.metadata["lock_waits"].value
