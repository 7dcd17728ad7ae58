"""Promotion: approved proposals into MEMORY.md, the day's snapshot, and the review log lines.
Approved friction fixes go to their target: MEMORY.md like a proposal, or a project's CLAUDE.md.

Only proposals whose status is `approved` are ever written; each line carries its proposal id,
so a promotion repeated after a crash or by a second process finds its line and adds nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memory_pipeline.faults import pause_point
from memory_pipeline.models import MEMORY_SECTIONS, Proposal
from memory_pipeline.resources.files.daily_log import DailyLog
from memory_pipeline.resources.files.memory_files import MemoryFiles
from memory_pipeline.resources.files.project_files import apply_fix_to_project
from memory_pipeline.resources.redis.proposals import ProposalStore
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.review.memory_md import (
    append_to_sections,
    promoted_ids,
    promoted_line,
    replace_line,
    section_heading,
)
from memory_pipeline.stages.untrusted import inline

OUTCOME_ICONS = {"approved": "✅", "rejected": "❌", "expired": "⌛", "edited": "✏️", "promoted": "📌", "restored": "↩️"}


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
    applied: dict[str, str] = field(default_factory=dict)  # friction fix id -> the file it went into
    messages: list[str] = field(default_factory=list)


def log_outcomes(workspace: Workspace, today: str, now: datetime, outcomes: list[Outcome]) -> None:
    """One `### 📋 Review` section per batch of decisions, each line naming its proposal id."""
    if not outcomes:
        return
    lines = [f"### 📋 Review ({now.astimezone().strftime('%H:%M')})", ""]
    for outcome in outcomes:
        detail = f" ({inline(outcome.detail)})" if outcome.detail else ""
        lines.append(f"- {OUTCOME_ICONS[outcome.kind]} {outcome.kind} `{outcome.pid}`{detail}: {inline(outcome.text)}")
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
    approved = [p for p in proposals.all().values() if p.status == "approved" and not p.promoted]
    waiting: list[Proposal] = sorted(  # sections a batch creates come out in MEMORY_SECTIONS order
        (p for p in approved if p.target == "MEMORY.md"),
        key=lambda p: (p.project, MEMORY_SECTIONS.index(p.section), p.id),  # plain sections first
    )
    if waiting:
        swapped_ids: set[str] = set()  # approved with --replace, and their old line found
        bases: list[str] = []  # each text `change` was applied to (a swap re-applies it to what it wrote)

        def change(before: str) -> str:
            bases.append(before)
            present, text, additions = promoted_ids(before), before, []
            for p in (p for p in waiting if p.id not in present):
                line = promoted_line(p.decided or p.created, p.text, p.id)  # dated the day it was approved
                swapped = replace_line(text, p.replaces, line) if p.replaces else None
                if swapped is None:
                    additions.append((section_heading(p.section, p.project), line))
                else:
                    text = swapped
                    swapped_ids.add(p.id)
            return append_to_sections(text, additions) if additions else text

        files.update_memory(change)
        pause_point("promote:after-memory-write")
        present = promoted_ids(bases[0])  # a replaced line makes the write retry on the text it wrote
        for proposal in waiting:
            (result.already_present if proposal.id in present else result.promoted).append(proposal.id)
            if proposal.replaces and proposal.id not in present:
                result.messages.append(f"{proposal.id} replaced the MEMORY.md line {proposal.replaces.strip()!r}"
                                       if proposal.id in swapped_ids else
                                       f"{proposal.id}: the line it was to replace is gone; added as a new line")
            if proposal.is_fix:
                result.applied[proposal.id] = str(workspace.memory_md)
                proposals.update(proposal.id, promoted=True, applied_to=str(workspace.memory_md))
            else:
                proposals.update(proposal.id, promoted=True)
    apply_project_fixes(workspace, proposals, [p for p in approved if p.target != "MEMORY.md"], result)
    result.snapshot = str(files.write_snapshot(snapshot_day))
    return result


def apply_project_fixes(workspace: Workspace, proposals: ProposalStore, fixes: list[Proposal],
                        result: PromoteResult) -> None:
    """Approved friction fixes for a project's CLAUDE.md / AGENTS.md, each appended to its file; one
    whose project folder is unknown or gone stays approved and unapplied, with a message."""
    for fix in sorted(fixes, key=lambda p: p.id):
        path, why_not = apply_fix_to_project(workspace, fix.target_dir, fix.target, day=fix.decided or fix.created,
                                             change=fix.text, fid=fix.id)
        if path is None:
            result.messages.append(why_not)
            continue
        result.promoted.append(fix.id)
        result.applied[fix.id] = str(path)
        proposals.update(fix.id, promoted=True, applied_to=str(path))
