"""Taking the inbox: every file accepted or quarantined, and which events still need a run."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.flows.intake.windows import close_idle_sessions
from memory_pipeline.flows.runs import runs_unchanged_since
from memory_pipeline.models import Observation, SessionEvent, content_hash
from memory_pipeline.resources.files.inbox import Inbox, TakeOutcome
from memory_pipeline.resources.files.observation_files import not_observed_path, observation_path
from memory_pipeline.resources.workspace import Workspace, atomic_write_json
from memory_pipeline.stages.events import observe_skip_reason


def take_inbox(workspace: Workspace, valid_day: Callable[[str], bool] | None = None, *,
               settings: Settings) -> list[TakeOutcome]:
    """Every pending event file, taken; first, the waiting windows of sessions now over are sent."""
    close_idle_sessions(workspace, settings=settings)
    inbox = Inbox(workspace)
    return [inbox.take(path, valid_day) for path in inbox.pending()]


def needs_observation(workspace: Workspace, event: SessionEvent, code_version: str) -> bool:
    """The event still needs its run: no observation of this code version yet, or, for a session
    the Observer skips (indexed, not observed), no run has marked it yet."""
    if observe_skip_reason(event) is not None:
        return not not_observed_path(workspace, event.day, event.data.dedupe_key).exists()
    path = observation_path(workspace, event.day, event.data.dedupe_key)
    if not path.exists():
        return True
    try:
        return Observation.model_validate_json(path.read_text(encoding="utf-8")).code_version != code_version
    except ValueError:
        return True


@dataclass(frozen=True)
class DayBatch:
    """The events of one day that one run observes together."""

    day: str
    events: tuple[SessionEvent, ...]

    @property
    def run_key(self) -> str:
        """The event's dedupeKey for one event; for several, a key derived from the set of them."""
        keys = sorted(e.data.dedupe_key for e in self.events)
        return keys[0] if len(keys) == 1 else f"{self.day}-{len(keys)}-{content_hash(chr(10).join(keys))[:16]}"

    def tags(self) -> dict[str, str]:
        sessions = sorted({e.data.session_id for e in self.events})
        return {"memory/session": sessions[0] if len(sessions) == 1 else f"{len(sessions)} sessions",
                "memory/trigger": ",".join(sorted({e.data.trigger for e in self.events})),
                "memory/events": str(len(self.events))}


def batch_by_day(events: Iterable[SessionEvent]) -> list[DayBatch]:
    """One batch per day, days in the order their first event came: a run per day, not per event
    (each run observes the whole day anyway)."""
    days: dict[str, list[SessionEvent]] = {}
    for event in events:
        days.setdefault(event.day, []).append(event)
    return [DayBatch(day, tuple(found)) for day, found in days.items()]


def last_run_unfinished(instance, day: str, job_name: str = "ingest_job") -> bool:
    """The day's latest run of `job_name` did not succeed: it failed, or its process was killed
    (a run left STARTED), so its observations may be written but not logged, hot-listed or indexed."""
    from dagster import DagsterRunStatus, RunsFilter

    runs = instance.get_runs(filters=RunsFilter(job_name=job_name, tags={"dagster/partition": day}), limit=1)
    return bool(runs) and runs[0].status != DagsterRunStatus.SUCCESS


def pending_days(workspace: Workspace, code_version: str, instance=None,
                 open_instance: Callable[[], object] | None = None, *, settings: Settings) -> list[str]:
    """Days with an accepted event whose observation is missing or from an older code version,
    and (given the Dagster instance) days whose last ingest run did not finish.

    A day found complete is remembered as settled with the mtimes of its events and observations
    folders (any file added, replaced or removed changes them); a settled day is not read again
    until a folder changes, the code version changes, or one of its runs is updated. So a call
    reads the days that changed, not the whole history. With `open_instance` instead of `instance`,
    the instance is opened only when a day is not settled or a run changed since the last check
    (`status` then answers without importing dagster); `settings` says where the instance lives.
    """
    inbox = Inbox(workspace)

    def unobserved(day: str) -> bool:
        return any(needs_observation(workspace, e, code_version) for e in inbox.accepted(day))

    if instance is None and open_instance is None:
        return [day for day in inbox.accepted_days() if unobserved(day)]
    opened = [instance] if instance is not None else []

    def get_instance():
        if not opened:
            opened.append(open_instance())
        return opened[0]

    started = time.time()
    settled = _read_settled(workspace, code_version)
    touched = _days_with_runs_since(get_instance, workspace, settled["checked"], known=instance is not None,
                                    settings=settings)
    pending, now_settled = [], {}
    for day in inbox.accepted_days():
        stamp = folder_stamp(workspace, day)
        if settled["days"].get(day) == stamp and day not in touched:
            now_settled[day] = stamp
        elif unobserved(day) or last_run_unfinished(get_instance(), day):
            pending.append(day)
        elif max(stamp) < (started - RACY_SECONDS) * 1e9:
            now_settled[day] = stamp  # a folder changed moments ago is read again next time
    atomic_write_json(_settled_path(workspace), {"code_version": code_version, "checked": started,
                                                 "days": now_settled})
    return pending


RACY_SECONDS = 2.0  # folder mtimes are coarse (a few ms): a change in the same tick could hide
RUN_CLOCK_SLACK = 60.0  # runs updated a little before the last check are looked at again


def folder_stamp(workspace: Workspace, day: str) -> list[int]:
    stamps = []
    for folder in (workspace.events_dir(day), workspace.observations_dir(day)):
        try:
            stamps.append(folder.stat().st_mtime_ns)
        except FileNotFoundError:
            stamps.append(0)
    return stamps


def _settled_path(workspace: Workspace) -> Path:
    return workspace.state_path("intake_settled")


def _read_settled(workspace: Workspace, code_version: str) -> dict:
    empty: dict[str, object] = {"checked": None, "days": {}}
    try:
        found = json.loads(_settled_path(workspace).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return empty
    if not isinstance(found, dict) or found.get("code_version") != code_version:
        return empty
    days = found.get("days")
    checked = found.get("checked")
    if not isinstance(days, dict) or not isinstance(checked, (int, float)):
        return empty
    return {"checked": float(checked), "days": days}


def _days_with_runs_since(get_instance: Callable, workspace: Workspace, checked: float | None,
                          known: bool, settings: Settings) -> set[str]:
    """Partition days of ingest runs updated since the last check (a run killed or re-executed
    from the UI after its day was settled). Unless the instance is already open, the run storage's
    age is looked at first, so a quiet instance is not opened."""
    if checked is None:
        return set()
    if not known and runs_unchanged_since(workspace, checked - RACY_SECONDS, settings):  # file times: a coarse clock
        return set()
    from dagster import RunsFilter

    since = datetime.fromtimestamp(checked - RUN_CLOCK_SLACK, tz=UTC)
    runs = get_instance().get_runs(filters=RunsFilter(job_name="ingest_job", updated_after=since))
    return {run.tags["dagster/partition"] for run in runs if "dagster/partition" in run.tags}
