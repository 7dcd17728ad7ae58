"""Promotion: approved proposals into MEMORY.md, the day's snapshot, and the review log lines.

Only proposals whose status is `approved` are ever written; each line carries its proposal id,
so a promotion repeated after a crash or by a second process finds its line and adds nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memory_pipeline.faults import pause_point
from memory_pipeline.models import MEMORY_SECTIONS, Proposal
from memory_pipeline.resources.daily_log import DailyLog
from memory_pipeline.resources.memory_files import MemoryFiles
from memory_pipeline.resources.proposals import ProposalStore
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.review.memory_md import append_to_sections, promoted_ids, promoted_line

OUTCOME_ICONS = {"approved": "✅", "rejected": "❌", "expired": "⌛", "edited": "✏️", "promoted": "📌"}


@dataclass
class Outcome:
    kind: str  # approved, rejected, expired, edited
    pid: str
    text: str
    detail: str = ""


@dataclass
class PromoteResult:
    promoted: list[str] = field(default_factory=list)
    already_present: list[str] = field(default_factory=list)
    snapshot: str = ""


def log_outcomes(workspace: Workspace, today: str, now: datetime, outcomes: list[Outcome]) -> None:
    """One `### 📋 Review` section per batch of decisions, each line naming its proposal id."""
    if not outcomes:
        return
    lines = [f"### 📋 Review ({now.astimezone().strftime('%H:%M')})", ""]
    for outcome in outcomes:
        detail = f" ({outcome.detail})" if outcome.detail else ""
        lines.append(f"- {OUTCOME_ICONS[outcome.kind]} {outcome.kind} `{outcome.pid}`{detail}: {outcome.text}")
    DailyLog(workspace).append(today, "\n".join(lines))


def repair_audit_log(workspace: Workspace, proposals: ProposalStore, now: datetime) -> list[Outcome]:
    """Write the review lines a killed run left out: every decided proposal whose decision line is
    missing from its decision day's log gets it now (an approval with an edit gets both lines)."""
    log, repaired = DailyLog(workspace), []
    by_day: dict[str, list[Proposal]] = {}
    for proposal in proposals.all().values():
        if proposal.status != "pending" and proposal.decided:
            by_day.setdefault(proposal.decided, []).append(proposal)
    for day, decided in sorted(by_day.items()):
        text = log.read(day)
        missing = []
        for p in sorted(decided, key=lambda p: p.id):
            if f"{p.status} `{p.id}`" in text:
                continue
            if p.status == "approved" and p.original_text and p.original_text != p.text:
                missing.append(Outcome("edited", p.id, p.text, f"was: {p.original_text}; recorded late"))
            detail = p.section if p.status == "approved" else f"proposed {p.created}" if p.status == "expired" else ""
            missing.append(Outcome(p.status, p.id, p.text, f"{detail}; recorded late" if detail else "recorded late"))
        log_outcomes(workspace, day, now, missing)
        repaired += missing
    return repaired


def promote_approved(workspace: Workspace, proposals: ProposalStore, snapshot_day: str) -> PromoteResult:
    """Append every approved, not yet promoted proposal to its MEMORY.md section, then write the
    snapshot of `snapshot_day` (state/memory_snapshots/<day>.md)."""
    files = MemoryFiles(workspace)
    result = PromoteResult()
    waiting: list[Proposal] = sorted(  # sections a batch creates come out in MEMORY_SECTIONS order
        (p for p in proposals.all().values() if p.status == "approved" and not p.promoted),
        key=lambda p: (MEMORY_SECTIONS.index(p.section), p.id),
    )
    if waiting:
        def change(before: str) -> str:
            present = promoted_ids(before)
            additions = [(p.section, promoted_line(p.created, p.text, p.id)) for p in waiting if p.id not in present]
            return append_to_sections(before, additions) if additions else before

        before, _ = files.update_memory(change)
        pause_point("promote:after-memory-write")
        present = promoted_ids(before)
        for proposal in waiting:
            (result.already_present if proposal.id in present else result.promoted).append(proposal.id)
            proposals.update(proposal.id, promoted=True)
    result.snapshot = str(files.write_snapshot(snapshot_day))
    return result
