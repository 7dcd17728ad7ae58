"""Running the Dagster jobs in this process, against the persistent instance of the workspace."""

from __future__ import annotations

import contextlib
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memory_pipeline.config import Settings
from memory_pipeline.resources.processes import process_alive, start_ticks
from memory_pipeline.resources.run_output import captured_output
from memory_pipeline.resources.workspace import Workspace, atomic_write_text, ensure_dir

if TYPE_CHECKING:
    import dagster as dg

# Run retries: under `dagster dev` a run that failed (Redis down past its step retries, a locked
# store) is retried by the daemon; the sensor does not request a run key twice. The daemon takes
# queued runs every second, not every 5 s (Dagster's default): a sensor's run waited 3–7.7 s in
# the queue, most of the time from an emitted event to its daily log. No asset has a freshness
# policy: the always-on daemon runs no freshness thread.
DAGSTER_YAML = """telemetry:
  enabled: false
run_retries:
  enabled: true
  max_retries: 2
run_coordinator:
  module: dagster.core.run_coordinator
  class: QueuedRunCoordinator
  config:
    dequeue_interval_seconds: 1
freshness:
  enabled: false
"""
# Runs started from the CLI keep their full event log in the instance (the UI shows it); the
# terminal gets only critical lines: a failed step is reported by the command in one line
# (`failure_message`), not as Dagster's 80-line traceback.
QUIET_CONSOLE = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


def dagster_home(workspace: Workspace, settings: Settings) -> Path:
    """DAGSTER_HOME if set, else state/dagster in the workspace (created with telemetry off)."""
    home = settings.dagster_home or workspace.state_path("dagster")
    ensure_dir(home)
    if not (home / "dagster.yaml").exists():
        atomic_write_text(home / "dagster.yaml", DAGSTER_YAML)
    return home


def get_instance(workspace: Workspace, settings: Settings) -> dg.DagsterInstance:
    """The Dagster instance of DAGSTER_HOME; opened under a workspace lock, since two processes
    opening a fresh DAGSTER_HOME at once would both create its SQLite schema and one would fail."""
    import dagster as dg

    home = dagster_home(workspace, settings)
    with workspace.locked("dagster-instance", timeout=120):
        return dg.DagsterInstance.from_config(str(home))


def runs_unchanged_since(workspace: Workspace, since: float, settings: Settings) -> bool:
    """No run was created or updated since `since` (unix seconds), told without opening the
    instance (importing dagster takes over a second): the default SQLite run storage of DAGSTER_HOME
    is older. An instance with its own storage configured (Postgres) always answers False."""
    home = dagster_home(workspace, settings)
    try:
        config = (home / "dagster.yaml").read_text(encoding="utf-8")
    except OSError:
        return False
    if any(line.split(":")[0].strip() in ("storage", "run_storage") for line in config.splitlines()):
        return False
    files = [home / "history" / name for name in ("runs.db", "runs.db-wal")]
    stamps = [f.stat().st_mtime for f in files if f.exists()]
    return max(stamps, default=0.0) < since


@dataclass(frozen=True)
class RunSummary:
    day: str
    run_id: str
    success: bool
    error: str | None = None
    output: str | None = None  # where what Dagster printed during the run went (RunOutput.note)


def failure_message(event) -> str:
    """"step: the error the step raised" (e.g. the StoreLockedError text), not Dagster's wrapper."""
    error = event.step_failure_data.error
    while (error.cls_name.startswith("Dagster") or error.cls_name == "RetryRequested") and error.cause is not None:
        error = error.cause
    message = error.message.strip()
    prefix = f"{error.cls_name}: "
    if prefix in message.split("\n", 1)[0]:
        message = message.split(prefix, 1)[1]
    return f"{event.step_key}: {error.cls_name}: {message}"


def outside_partitions(job: dg.JobDefinition, day: str) -> str | None:
    """Why `day` is not a partition of `job` (a clear line instead of DagsterUnknownPartitionError), or None."""
    partitions = job.partitions_def
    if partitions is None or partitions.has_partition_key(day):
        return None
    keys = partitions.get_partition_keys()
    held = f"{keys[0]} to {keys[-1]}" if keys else "none"
    return (f"{day} is not one of the daily partitions ({held}): `memory-pipeline import` moves the first "
            "day back to the oldest session it imports; MEMORY_PARTITIONS_START, when set, wins")


def _output_to(log: Path | None, title: str):
    return captured_output(log, title) if log is not None else contextlib.nullcontext()


TODAY_TAG = "memory/today"  # a run tag that sets "today" (staleness, review clocks) for tests and replays
# The process an in-process run runs in: "host:pid:start ticks". A run whose process was killed (kill -9, the
# OOM killer, a machine that went down) stays STARTED in the instance forever, shown as running in the UI;
# the next run of its job in this workspace finds its process gone and reports it failed.
PROCESS_TAG = "memory/process"


def process_tag() -> str:
    """PROCESS_TAG's value for this process (the start ticks empty where /proc is not there)."""
    pid = os.getpid()
    started = start_ticks(pid)
    return f"{socket.gethostname()}:{pid}:{'' if started is None else started}"


def process_gone(tag: str) -> bool:
    """Whether the process a PROCESS_TAG value names has ended: on this host, its pid runs no more, or runs a
    process started later (the pid used again). Another host's process, or a value not of this form: False,
    not this process's to judge."""
    host, pid, started = (tag.rsplit(":", 2) + ["", ""])[:3]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if not process_alive(int(pid)):
        return True
    return started != "" and str(start_ticks(int(pid))) != started


def close_dead_runs(instance: dg.DagsterInstance, job_name: str) -> list[str]:
    """Report failed each run of `job_name` left STARTED by a process that has ended (PROCESS_TAG); the ids.
    Runs without the tag (a daemon's, a run from before it) are Dagster's to watch, and left alone."""
    from dagster import DagsterRunStatus, RunsFilter

    closed = []
    for run in instance.get_runs(filters=RunsFilter(job_name=job_name, statuses=[
            DagsterRunStatus.STARTING, DagsterRunStatus.STARTED])):
        tag = run.tags.get(PROCESS_TAG)
        if tag and process_gone(tag):
            instance.report_run_failed(run, message=(
                f"the process running it ({tag}) ended before the run did: killed or crashed. Run the day "
                "again; `memory-pipeline ingest` does so by itself for the days it ingests."))
            closed.append(run.run_id)
    return closed


def run_job_for_days(definitions: dg.Definitions, job_name: str, days: list[str], instance: dg.DagsterInstance,
                     tags: dict[str, str] | None = None, progress=None,
                     output_log: Path | None = None) -> list[RunSummary]:
    """Execute a partitioned job of `definitions` once per day in this process, each run tagged with it
    (PROCESS_TAG), after closing the job's runs that a killed process left STARTED; failures are
    reported, not raised. The caller hands the Definitions in (memory_pipeline.main builds them).
    With `output_log`, what Dagster prints to stderr during each run goes there, not to the terminal."""
    job = definitions.resolve_job_def(job_name)
    close_dead_runs(instance, job_name)
    tags = {PROCESS_TAG: process_tag(), **(tags or {})}
    summaries = []
    for day in days:
        if outside := outside_partitions(job, day):
            summaries.append(RunSummary(day, "", False, outside))
            continue
        with _output_to(output_log, f"{job_name} {day}") as output:
            result = job.execute_in_process(instance=instance, partition_key=day, raise_on_error=False,
                                            tags=tags, run_config=QUIET_CONSOLE)
        error = None
        if not result.success:
            failures = [e for e in result.all_events if e.is_step_failure]
            error = failure_message(failures[0]) if failures else "run failed"
        summaries.append(RunSummary(day, result.run_id, result.success, error, output.note() if output else None))
        if progress is not None:
            progress(day)
    return summaries
