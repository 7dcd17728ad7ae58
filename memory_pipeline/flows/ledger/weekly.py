"""The weekly ledger maintenance (seed 001): archive resolved chains, then rebuild the open-loops
index from scratch and compare it with the one kept incrementally (they must be equal)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from memory_pipeline.flows.ledger.events import after_write
from memory_pipeline.resources.files.ledger_files import LedgerFiles
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.ledger.archive import plan_compaction
from memory_pipeline.stages.ledger.derive import next_numbers
from memory_pipeline.stages.ledger.index import rebuild_open_loops
from memory_pipeline.stages.ledger.integrity import IntegrityReport


@dataclass
class WeeklyResult:
    incremental: list[str] | None
    rebuilt: list[str]
    archived: int = 0
    summaries: list[str] = field(default_factory=list)
    report: IntegrityReport | None = None

    @property
    def index_matches(self) -> bool:
        return self.incremental == self.rebuilt


def weekly_rebuild(workspace: Workspace, today: str, now: datetime | None = None) -> WeeklyResult:
    files = LedgerFiles(workspace)
    moment = now or datetime.now(UTC)
    with files.locked():
        parsed = files.read()
        result = WeeklyResult(incremental=files.open_loops(), rebuilt=rebuild_open_loops(parsed.events))
        if parsed.errors:  # never rewrite a ledger with lines that cannot be read: report them
            result.report = after_write(files, moment)
            return result
        numbers = next_numbers([e.id for e in parsed.events] + files.archive_ids())
        plan = plan_compaction(parsed.events, date.fromisoformat(today), moment,
                               numbers.get(today.replace("-", ""), 1))
        if plan.changed:
            files.rewrite_compacted(plan.keep, plan.archived)
            result.archived, result.summaries = len(plan.archived), [e.id for e in plan.summaries]
        files.write_json("index/open-loops.json", rebuild_open_loops(plan.keep))
        files.write_json("checkpoint.json", {"last_processed_event_id": None, "last_run_ts": moment.isoformat(),
                                             "events_processed": 0})
        result.report = after_write(files, moment)
    return result
