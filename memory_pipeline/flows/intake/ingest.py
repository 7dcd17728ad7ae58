"""`ingest`: take the inbox, then materialize every day that has events still to observe."""

from __future__ import annotations

import contextlib
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.errors import MemoryPipelineError
from memory_pipeline.flows.intake.inbox import pending_days, take_inbox
from memory_pipeline.flows.review.asset_events import record_transcripts
from memory_pipeline.flows.runs import RunSummary, get_instance, run_job_for_days
from memory_pipeline.flows.store_check import store_checked
from memory_pipeline.resources import partitions
from memory_pipeline.resources.embedding.onnx_embedder import embedder_for
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.files.observation_files import load_observations
from memory_pipeline.resources.vectors.stores import held_for_runs
from memory_pipeline.resources.workspace import Workspace

if TYPE_CHECKING:
    import dagster as dg


@dataclass
class DayReport:
    day: str
    success: bool
    observations: int = 0
    facts: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    run_id: str = ""
    output: str | None = None  # where what Dagster printed during the run went


@dataclass
class IngestReport:
    accepted: int = 0
    duplicates: int = 0
    quarantined: list[tuple[str, str]] = field(default_factory=list)
    waiting: int = 0
    days: list[DayReport] = field(default_factory=list)
    store: str | None = None  # what the check of the vector store found and rebuilt (flows/store_check)

    @property
    def success(self) -> bool:
        return all(d.success for d in self.days)

    def as_dict(self) -> dict:
        return {
            "accepted": self.accepted,
            "duplicates": self.duplicates,
            "waiting": self.waiting,
            "quarantined": [{"file": f, "reason": r} for f, r in self.quarantined],
            "days": [d.__dict__ for d in self.days],
            "store": self.store,
            "success": self.success,
        }


def ingest(workspace: Workspace, definitions: dg.Definitions, settings: Settings, *, day: str | None = None,
           progress=None) -> IngestReport:
    """Take the inbox, then run ingest_job of `definitions` for every day with events to observe."""
    valid_day = partitions.day_checker(settings)
    if day is not None:
        partitions.check_day(day, settings)
    report = IngestReport()
    for outcome in take_inbox(workspace, valid_day, settings=settings):
        if outcome.status == "accepted":
            report.accepted += 1
        elif outcome.status == "duplicate":
            report.duplicates += 1
        elif outcome.status == "quarantined":
            report.quarantined.append((outcome.path.name, outcome.reason or ""))
        else:
            report.waiting += 1
    report.store = store_checked(workspace, settings)
    instance = get_instance(workspace, settings)
    days = [day] if day else pending_days(workspace, pipeline.code_version("observe", settings), instance, settings=settings)
    record_transcripts(instance, [event for d in days for event in Inbox(workspace).accepted(d)])
    runs: list[RunSummary] = []
    if days:  # the workspace's shard held for the runs: one open, not one per index step and day
        from memory_pipeline.flows.recall.engine import open_store  # noqa: PLC0415 — numpy and the stores, only for days to run

        with contextlib.ExitStack() as held:
            with contextlib.suppress(MemoryPipelineError):  # a shard that cannot be held now: each step's error
                dimension = embedder_for(settings.embedding_model, settings).dimension
                held.enter_context(held_for_runs(open_store(workspace, settings, dimension)))
            runs = run_job_for_days(definitions, "ingest_job", days, instance, progress=progress,
                                    output_log=workspace.state_path("dagster_output"))
    for run in runs:
        found = load_observations(workspace, run.day)
        facts: Counter[str] = Counter(f.priority for o in found for f in o.facts)
        report.days.append(DayReport(run.day, run.success, len(found), dict(facts), run.error, run.run_id, run.output))
    return report
