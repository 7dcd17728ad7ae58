"""What `memory-pipeline review …` does, as one use case: open the proposals, apply one action
(approve, reject, restore, edit, or take in REVIEW.md's edits), and record a change as a
`memory_md` materialization in the Dagster instance so the UI shows it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError
from memory_pipeline.flows.review.decisions import ReviewReport, apply_review, decide_ids, edit_text, restore_ids
from memory_pipeline.flows.runs import get_instance
from memory_pipeline.resources import partitions
from memory_pipeline.resources.files.memory_files import MemoryFiles
from memory_pipeline.resources.redis.proposals import ProposalStore
from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis
from memory_pipeline.resources.workspace import Workspace


def open_proposals(workspace: Workspace, settings: Settings) -> ProposalStore:
    """The proposals in Redis (REDIS_URL, or the workspace's own redis-server)."""
    client = connect_redis(settings.redis_url, workspace.state, settings.redis_idle_timeout, settings.runtime_dir)
    return ProposalStore(RedisStore(client))


def review_now(settings: Settings) -> datetime:
    return datetime.now(ZoneInfo(pipeline.timezone_name(settings)))


def run_review_action(workspace: Workspace, store: ProposalStore, settings: Settings, action: str, *,
                      ids: Sequence[str] = (), pid: str | None = None, text: str = "",
                      now: datetime, held: bool = False, replace: bool = False) -> ReviewReport:
    """One review action; every one first takes in REVIEW.md's edits and expires old proposals
    (`list`, `show` and `sync` do only that). Approvals are promoted into MEMORY.md right away;
    a held proposal only with `held` (`approve --held`), else it is reported with its reasons."""
    today = now.date().isoformat()
    before = MemoryFiles(workspace).read_memory()
    if action == "approve":
        report = decide_ids(workspace, store, approve=ids, today=today, now=now, approve_held=held,
                            replace=replace)
    elif action == "reject":
        report = decide_ids(workspace, store, reject=ids, today=today, now=now)
    elif action == "restore":
        report = restore_ids(workspace, store, ids, today=today, now=now)
    elif action == "edit":
        if pid is None:
            raise BadInputError("review edit needs the id of the proposal to change")
        report = edit_text(workspace, store, pid, text, today=today, now=now)
    else:
        report = apply_review(workspace, store, today=today, now=now)
    if report.outcomes or report.promoted or MemoryFiles(workspace).read_memory() != before:
        record_in_dagster(workspace, store, report, today, f"cli:review {action}", settings)
    return report


def record_in_dagster(workspace: Workspace, store: ProposalStore, report: ReviewReport, today: str, surface: str,
                      settings: Settings) -> None:
    """A decision made outside Dagster is a memory_md materialization in its instance (the UI shows it)."""
    from memory_pipeline.flows.review.asset_events import record_memory_md_change  # noqa: PLC0415 — Dagster, only after a change

    if partitions.valid_day(today, settings, today=pipeline.local_today(settings)):
        record_memory_md_change(get_instance(workspace, settings), workspace, store, report, day=today,
                                code_version=pipeline.code_version("memory_md", settings), surface=surface)


def listed_proposals(store: ProposalStore, *, every: bool = False, rejected: bool = False) -> list:
    """The pending proposals; with `every` all of them, with `rejected` the rejected ones (by id)."""
    if every or rejected:
        return sorted((p for p in store.all().values() if every or p.status == "rejected"), key=lambda p: p.id)
    return store.pending()
