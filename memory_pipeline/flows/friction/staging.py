"""Staging friction fixes: worded findings become f-YYYYMMDD-NNN-xxxx proposals (`stages/proposal_ids`) in Redis and REVIEW.md.

The same review machinery as the Reflector's proposals (flows/review/proposals.py): the review lock,
the user's unsynced REVIEW.md edits taken in first, one owner per normalized text, and ids
numbered after the fixes the day already has, so re-running a day stages nothing twice; a fix the
same day staged before is listed as staged again (a re-run equals a clean run, also after kill -9).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memory_pipeline.flows.review.decisions import REVIEW_LOCK, ReviewReport, render_review, sync_review_edits
from memory_pipeline.flows.review.promote import log_outcomes
from memory_pipeline.models import Proposal
from memory_pipeline.resources.files.memory_files import MemoryFiles
from memory_pipeline.resources.files.project_files import repository_folder
from memory_pipeline.resources.redis.proposals import ProposalStore, random_suffix
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.friction.findings import Finding
from memory_pipeline.stages.friction.wording import Wording, never_authored
from memory_pipeline.stages.proposal_ids import issue_ids
from memory_pipeline.stages.review.review_md import normalize_text, text_key
from memory_pipeline.stages.untrusted import inline


@dataclass
class StagedFixes:
    staged: list[Proposal] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # finding pattern -> reason
    review: ReviewReport = field(default_factory=ReviewReport)


def fix_proposal(fid: str, day: str, finding: Finding, wording: Wording) -> Proposal:
    """The fix as staged: its text one line (untrusted.inline), its folder the repository's root."""
    return Proposal(
        id=fid, section=finding.section, text=inline(wording.change), original_text=wording.change,
        created=day, title=inline(wording.title), target=finding.target,
        target_dir=repository_folder(finding.target_dir) if finding.target_dir else "",
        severity=finding.severity, sessions=finding.sessions, source_observation_ids=finding.observation_ids,
        source_message_ids=finding.message_ids, evidence=[e.line() for e in finding.evidence],
        pattern=finding.pattern, friction_kind=finding.kind, recurring_of=finding.recurring_of,
    )


def own_claim(fixes: ProposalStore, key: str, day: str) -> Proposal | str | None:
    """Who proposes this text: None (nobody, or a claim whose fix was never saved: a run killed
    between the two, released here), the fix itself when this day staged it, else its id."""
    owner = fixes.store.proposal_for_text(key)
    if owner is None:
        return None
    proposal = fixes.get(owner)
    if proposal is None:
        fixes.store.release_proposal_text(key, owner)
        return None
    return proposal if proposal.created == day and proposal.status == "pending" and proposal.is_fix else owner


def stage_fixes(workspace: Workspace, fixes: ProposalStore, worded: list[tuple[Finding, Wording]], *, day: str,
                today: str, now: datetime) -> StagedFixes:
    """Store each worded finding as a pending fix and re-render REVIEW.md."""
    result = StagedFixes()
    with workspace.locked(REVIEW_LOCK):
        seen = sync_review_edits(workspace, fixes, result.review, today, now)
        log_outcomes(workspace, today, now, result.review.outcomes)
        memory_flat = normalize_text(MemoryFiles(workspace).read_memory())
        fresh = []
        for finding, wording in worded:
            owner = own_claim(fixes, text_key(wording.change), day)
            if refused := never_authored(finding, wording):
                result.skipped[finding.pattern] = refused
            elif normalize_text(wording.change) and normalize_text(wording.change) in memory_flat:
                result.skipped[finding.pattern] = "already in MEMORY.md"
            elif isinstance(owner, Proposal):
                result.staged.append(owner)  # this day staged it before (a re-run, or a run killed after staging)
            elif owner:
                result.skipped[finding.pattern] = f"already proposed as {owner}"
            else:
                fresh.append((finding, wording))
        ids = issue_ids(day, list(fixes.all()), len(fresh), random_suffix, kind="f")
        for fid, (finding, wording) in zip(ids, fresh, strict=False):
            if fixes.store.claim_proposal_text(text_key(wording.change), fid) != fid:
                result.skipped[finding.pattern] = "proposed by another run meanwhile"
                continue
            proposal = fix_proposal(fid, day, finding, wording)
            fixes.save(proposal)
            result.staged.append(proposal)
        render_review(workspace, fixes, now, expected=seen)
    return result
