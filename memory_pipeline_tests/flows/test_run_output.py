"""What Dagster prints during the CLI's in-process runs goes to state/dagster-output.log, not the terminal."""

from __future__ import annotations

import sys

import dagster as dg

from memory_pipeline.flows.runs import run_job_for_days

DAYS = dg.DailyPartitionsDefinition(start_date="2026-11-01")
FAILING_DAY = "2026-11-03"
DAGSTER_NOTE = "Exception while writing logger call to event log: (sqlite3.OperationalError) database or disk is full"


@dg.asset(partitions_def=DAYS)
def noisy(context) -> None:
    sys.stderr.write(DAGSTER_NOTE + "\n")  # as dagster/_core/instance/types.py writes it
    context.log.critical("a line of the run's console logger")
    if context.partition_key == FAILING_DAY:
        raise RuntimeError("the step failed")


def noisy_job() -> dg.Definitions:
    return dg.Definitions(assets=[noisy], jobs=[dg.define_asset_job("noisy_job", [noisy], partitions_def=DAYS)])


def test_dagster_lines_go_to_the_log_and_the_summary_says_where(tmp_path, capfd):
    definitions, instance = noisy_job(), dg.DagsterInstance.ephemeral()
    definitions.resolve_job_def("noisy_job")
    capfd.readouterr()
    log = tmp_path / "state" / "dagster-output.log"
    ok, failed = run_job_for_days(definitions, "noisy_job", ["2026-11-02", FAILING_DAY], instance, output_log=log)
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    assert ok.success and not failed.success and "RuntimeError: the step failed" in failed.error
    assert ok.output == failed.output == f"Dagster's output: {log}"
    text = log.read_text(encoding="utf-8")
    assert text.count(DAGSTER_NOTE) == 2 and "a line of the run's console logger" in text
    assert f"noisy_job {FAILING_DAY}" in text and "noisy_job 2026-11-02" in text  # each run's block is headed


def test_a_log_that_cannot_be_written_is_said_and_nothing_reaches_the_terminal(tmp_path, capfd):
    definitions, instance = noisy_job(), dg.DagsterInstance.ephemeral()
    definitions.resolve_job_def("noisy_job")
    (tmp_path / "state").write_text("a file where the folder should be")
    capfd.readouterr()
    log = tmp_path / "state" / "dagster-output.log"
    [run] = run_job_for_days(definitions, "noisy_job", ["2026-11-02"], instance, output_log=log)
    assert capfd.readouterr() == ("", "")
    assert run.success and run.output.startswith(f"Dagster's output not saved to {log}: ")


def test_without_a_log_the_run_prints_as_before(capfd):
    definitions, instance = noisy_job(), dg.DagsterInstance.ephemeral()
    definitions.resolve_job_def("noisy_job")
    capfd.readouterr()
    [run] = run_job_for_days(definitions, "noisy_job", ["2026-11-02"], instance)
    assert run.success and run.output is None and DAGSTER_NOTE in capfd.readouterr().err
