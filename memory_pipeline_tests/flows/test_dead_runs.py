"""A run whose process was killed is reported failed by the next run of its job, not left STARTED forever."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import dagster as dg

import memory_pipeline
from memory_pipeline.flows.runs import PROCESS_TAG, close_dead_runs, process_gone, process_tag, run_job_for_days
from memory_pipeline.resources.processes import start_ticks

KILLED_DAY, NEXT_DAY = "2026-11-02", "2026-11-03"

# a job whose step kills its own process (kill -9) on KILLED_DAY, run through run_job_for_days
KILLING_SCRIPT = textwrap.dedent(f"""
    import os, signal, sys
    import dagster as dg
    from memory_pipeline.flows.runs import run_job_for_days

    DAYS = dg.DailyPartitionsDefinition(start_date="2026-11-01")

    @dg.asset(partitions_def=DAYS)
    def work(context) -> None:
        if context.partition_key == "{KILLED_DAY}":
            os.kill(os.getpid(), signal.SIGKILL)

    definitions = dg.Definitions(assets=[work], jobs=[dg.define_asset_job("work_job", [work], partitions_def=DAYS)])
    run_job_for_days(definitions, "work_job", [sys.argv[1]], dg.DagsterInstance.get())
""")


def _work_job() -> dg.Definitions:
    days = dg.DailyPartitionsDefinition(start_date="2026-11-01")

    @dg.asset(partitions_def=days)
    def work() -> None:
        return None

    return dg.Definitions(assets=[work], jobs=[dg.define_asset_job("work_job", [work], partitions_def=days)])


def test_a_run_killed_with_its_process_is_reported_failed_by_the_next_run(tmp_path):
    home = tmp_path / "dagster"
    home.mkdir()
    script = tmp_path / "killing.py"
    script.write_text(KILLING_SCRIPT)
    env = {**os.environ, "DAGSTER_HOME": str(home), "PYTHONPATH": str(Path(memory_pipeline.__file__).parents[1])}
    killed = subprocess.run([sys.executable, str(script), KILLED_DAY], env=env, capture_output=True, timeout=120)
    assert killed.returncode == -9, killed.stderr.decode()[-2000:]
    with dg.instance_for_test(temp_dir=str(home)) as instance:
        [left] = instance.get_runs()
        assert left.status == dg.DagsterRunStatus.STARTED  # what a kill -9 leaves behind
        assert left.tags[PROCESS_TAG].startswith(f"{socket.gethostname()}:")
        [summary] = run_job_for_days(_work_job(), "work_job", [NEXT_DAY], instance)
        assert summary.success
        closed = instance.get_run_by_id(left.run_id)
        assert closed.status == dg.DagsterRunStatus.FAILURE
        failure = instance.all_logs(left.run_id, of_type=dg.DagsterEventType.RUN_FAILURE)
        assert "ended before the run did" in failure[-1].message
        assert instance.get_run_by_id(summary.run_id).tags[PROCESS_TAG] == process_tag()


def test_runs_of_live_processes_other_hosts_and_untagged_runs_are_left_alone(tmp_path):
    definitions = _work_job()
    job = definitions.resolve_job_def("work_job")
    with dg.instance_for_test(temp_dir=str(tmp_path)) as instance:
        def started(tags: dict[str, str]) -> str:
            return instance.create_run_for_job(job, status=dg.DagsterRunStatus.STARTED, tags=tags).run_id

        alive = started({PROCESS_TAG: process_tag()})  # this test's own process
        elsewhere = started({PROCESS_TAG: "another-host:1:1"})
        untagged = started({})  # a daemon's run, or one from before the tag
        reused = started({PROCESS_TAG: f"{socket.gethostname()}:{os.getpid()}:{(start_ticks(os.getpid()) or 0) + 1}"})
        assert close_dead_runs(instance, "work_job") == [reused]  # the pid now runs a later process
        for run_id in (alive, elsewhere, untagged):
            assert instance.get_run_by_id(run_id).status == dg.DagsterRunStatus.STARTED
        assert instance.get_run_by_id(reused).status == dg.DagsterRunStatus.FAILURE


def test_what_a_process_tag_says():
    assert not process_gone(process_tag())
    assert not process_gone("not a tag") and not process_gone(f"{socket.gethostname()}:x:1")
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    assert process_gone(f"{socket.gethostname()}:{finished.stdout.strip()}:")
