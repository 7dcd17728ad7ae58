"""Taking the inbox: every file accepted or quarantined, and which events still need a run."""

from __future__ import annotations

from collections.abc import Callable

from memory_pipeline.flows.observations import observation_path
from memory_pipeline.models import Observation, SessionEvent
from memory_pipeline.resources.inbox import Inbox, TakeOutcome
from memory_pipeline.resources.workspace import Workspace


def take_inbox(workspace: Workspace, valid_day: Callable[[str], bool] | None = None) -> list[TakeOutcome]:
    inbox = Inbox(workspace)
    return [inbox.take(path, valid_day) for path in inbox.pending()]


def needs_observation(workspace: Workspace, event: SessionEvent, code_version: str) -> bool:
    path = observation_path(workspace, event.day, event.data.dedupe_key)
    if not path.exists():
        return True
    try:
        return Observation.model_validate_json(path.read_text(encoding="utf-8")).code_version != code_version
    except ValueError:
        return True


def last_run_unfinished(instance, day: str, job_name: str = "ingest_job") -> bool:
    """The day's latest run of `job_name` did not succeed: it failed, or its process was killed
    (a run left STARTED), so its observations may be written but not logged, hot-listed or indexed."""
    from dagster import DagsterRunStatus, RunsFilter

    runs = instance.get_runs(filters=RunsFilter(job_name=job_name, tags={"dagster/partition": day}), limit=1)
    return bool(runs) and runs[0].status != DagsterRunStatus.SUCCESS


def pending_days(workspace: Workspace, code_version: str, instance=None) -> list[str]:
    """Days with an accepted event whose observation is missing or from an older code version,
    and (given the Dagster instance) days whose last ingest run did not finish."""
    inbox = Inbox(workspace)
    return [
        day for day in inbox.accepted_days()
        if any(needs_observation(workspace, e, code_version) for e in inbox.accepted(day))
        or (instance is not None and last_run_unfinished(instance, day))
    ]
