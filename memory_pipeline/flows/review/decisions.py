"""Review: the decisions both surfaces make (REVIEW.md edits and the `review` command).

Every function takes the review lock, changes proposal status atomically in Redis (so two
processes cannot both approve one proposal), logs each outcome with its id in the daily log,
promotes what was approved and re-renders REVIEW.md.
"""

from __future__ import annotations

import os
import pwd
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from memory_pipeline.errors import BadInputError
from memory_pipeline.faults import pause_point
from memory_pipeline.flows.review.promote import Outcome, log_outcomes, promote_approved, repair_audit_log
from memory_pipeline.resources.files.memory_files import MemoryFiles, bad_bytes, sha256_text
from memory_pipeline.resources.redis.proposals import ProposalStore
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.guard import hold_reasons
from memory_pipeline.stages.review.memory_md import contradicted_line
from memory_pipeline.stages.review.review_md import (
    decide,
    expiry_note,
    is_expired,
    parse_review_md,
    render_review_md,
    review_start,
)

REVIEW_LOCK = "review"


@dataclass
class ReviewReport:
    outcomes: list[Outcome] = field(default_factory=list)
    promoted: list[str] = field(default_factory=list)
    applied: dict[str, str] = field(default_factory=dict)  # friction fix id -> the file it went into
    messages: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    held: dict[str, list[str]] = field(default_factory=dict)  # id -> why it was held, not approved

    def ids(self, kind: str) -> list[str]:
        return [o.pid for o in self.outcomes if o.kind == kind]

    def as_dict(self) -> dict:
        return {kind: self.ids(kind) for kind in ("approved", "rejected", "expired", "edited")} | {
            "promoted": self.promoted, "applied": self.applied, "messages": self.messages, "errors": self.errors,
            "held": self.held}


def _why_not(pid: str, proposals: ProposalStore) -> str:
    found = proposals.get(pid)
    if found is None:
        return f"unknown proposal id {pid} (see `memory-pipeline review list`)"
    if found.status == "expired":
        return f"{pid} expired on {found.decided} after 7 days without review; it was not promoted"
    return f"{pid} was already {found.status}" + (f" on {found.decided}" if found.decided else "")


def decider(surface: str) -> str:
    """Who decided: the surface (`review command`, `REVIEW.md`) and the local account."""
    try:
        account = pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        account = str(os.getuid())
    return f"{surface} ({account})"


def held_refusal(pid: str, reasons: list[str], by: str) -> str:
    """Why a held proposal was not approved, and the deliberate step that approves it."""
    how = "a tick in REVIEW.md does not approve held text" if by == "REVIEW.md" else "it was not approved"
    return (f"{pid} is held for review ({'; '.join(reasons)}): {how}. Read it with `memory-pipeline review show "
            f"{pid}`; if you mean it, approve it alone with `memory-pipeline review approve {pid} --held`")


def _approve(proposals: ProposalStore, report: ReviewReport, pid: str, today: str, text: str | None,
             by: str, held_ok: bool = False) -> None:
    """Approve one pending proposal. Held text (stages/guard: network code, privileges, disabled
    checks, words to the agent) takes a deliberate second step: `held_ok` (`review approve ID
    --held`), never a plain approve or a REVIEW.md tick; those report it instead."""
    current = proposals.get(pid)
    if current is None or current.status != "pending":
        (report.messages if current and current.status == "approved" else report.errors).append(_why_not(pid, proposals))
        return
    new_text = " ".join(text.split()) if text is not None else None
    edited = new_text if new_text is not None and new_text != current.text else None  # the text approved instead
    reasons = hold_reasons(edited if edited is not None else current.text)
    if reasons and not held_ok:
        report.held[pid] = reasons
        (report.messages if by == "REVIEW.md" else report.errors).append(held_refusal(pid, reasons, by))
        return
    fields: dict[str, object] = {"decided": today, "decided_by": decider(by)}
    if edited is not None:
        fields.update(text=edited, original_text=current.text)
    if not proposals.transition(pid, "pending", "approved", **fields):
        report.messages.append(_why_not(pid, proposals) + " (by another process)")
        return
    if edited is not None:
        report.outcomes.append(Outcome("edited", pid, edited, f"was: {current.text}"))
    detail = current.section + (f"; approved although held: {'; '.join(reasons)}" if reasons else "")
    report.outcomes.append(Outcome("approved", pid, str(fields.get("text", current.text)), detail))


def _reject(proposals: ProposalStore, report: ReviewReport, pid: str, today: str, by: str) -> None:
    current = proposals.get(pid)
    if current is None or current.status != "pending":
        (report.messages if current and current.status == "rejected" else report.errors).append(_why_not(pid, proposals))
        return
    if proposals.transition(pid, "pending", "rejected", decided=today, decided_by=decider(by)):
        proposals.release_text(current.model_copy(update={"status": "rejected"}))
        report.outcomes.append(Outcome("rejected", pid, current.text))
    else:
        report.messages.append(_why_not(pid, proposals) + " (by another process)")


def _expire(proposals: ProposalStore, report: ReviewReport, today: str) -> None:
    for proposal in proposals.pending():
        if not is_expired(proposal, today) and (note := expiry_note(proposal, today)):
            report.messages.append(f"{proposal.id} {note.strip().removeprefix('_(').removesuffix(')_')}")
        if is_expired(proposal, today) and proposals.transition(proposal.id, "pending", "expired", decided=today):
            proposals.release_text(proposal.model_copy(update={"status": "expired"}))  # it may be proposed again
            start = review_start(proposal)
            about = f", about {proposal.created}" if proposal.created != start else ""
            report.outcomes.append(Outcome("expired", proposal.id, proposal.text, f"proposed {start}{about}"))


def render_review(workspace: Workspace, proposals: ProposalStore, now: datetime, expected: str | None = None) -> bool:
    """Write REVIEW.md for the pending proposals; False when the user saved it meanwhile."""
    pending = proposals.pending()
    files = MemoryFiles(workspace)
    memory = files.read_memory()
    changes = {p.id: line for p in pending
               if not p.is_fix and (line := contradicted_line(memory, p.text, p.project)) is not None}
    return files.write_review(render_review_md(pending, now, changes), {p.id: p.text for p in pending},
                              expected=expected)


def sync_review_edits(workspace: Workspace, proposals: ProposalStore, report: ReviewReport, today: str,
               now: datetime) -> str | None:
    """Apply the user's REVIEW.md edits (caller holds the review lock); returns the text read
    (None when there is no file), to pass as `expected` when REVIEW.md is rendered again."""
    files = MemoryFiles(workspace)
    text = files.read_review()
    report.messages += [n for n in (bad_bytes(workspace.review_md), bad_bytes(workspace.memory_md)) if n]
    rendered = files.rendered()
    if text is None or sha256_text(text) == rendered.get("sha256"):
        return text
    parsed = parse_review_md(text)
    decisions = decide(parsed, rendered.get("proposals", {}), proposals.all())
    report.messages += decisions.messages
    if decisions.damaged(parsed):
        report.messages.append(f"your REVIEW.md was saved to {files.backup_review(text, now)} before re-rendering")
    for pid, new_text in decisions.edit.items():
        current = proposals.get(pid)
        if current is None:  # gone since REVIEW.md was read (another process)
            report.errors.append(_why_not(pid, proposals))
            continue
        proposals.update(pid, text=new_text, original_text=current.original_text or current.text)
        report.outcomes.append(Outcome("edited", pid, new_text, f"was: {current.text}"))
    for pid, new_text in decisions.approve.items():
        _approve(proposals, report, pid, today, new_text, "REVIEW.md")
    for pid in decisions.reject:
        _reject(proposals, report, pid, today, "REVIEW.md")
    return text


def _finish(workspace: Workspace, proposals: ProposalStore, report: ReviewReport, today: str, now: datetime,
            expected: str | None = None, snapshot_day: str | None = None) -> ReviewReport:
    pause_point("review:before-log")
    log_outcomes(workspace, today, now, report.outcomes)
    if repaired := repair_audit_log(workspace, proposals, now):  # a run killed after its status changes
        report.messages.append(f"wrote {len(repaired)} review log line(s) an interrupted run had left out")
    promoted = promote_approved(workspace, proposals, snapshot_day or today)
    report.promoted, report.applied = promoted.promoted, promoted.applied
    report.messages += promoted.messages
    if not render_review(workspace, proposals, now, expected=expected):
        report.messages.append("REVIEW.md changed while it was being applied; it will be read again next time")
    return report


def apply_review(workspace: Workspace, proposals: ProposalStore, *, today: str, now: datetime,
                 snapshot_day: str | None = None) -> ReviewReport:
    """REVIEW.md edits, then expiry, then promotion, the snapshot of `snapshot_day` (default
    `today`) and a fresh REVIEW.md: what the memory_md asset, the sensor and the CLI run."""
    report = ReviewReport()
    with workspace.locked(REVIEW_LOCK):
        read = sync_review_edits(workspace, proposals, report, today, now)
        _expire(proposals, report, today)
        return _finish(workspace, proposals, report, today, now, expected=read, snapshot_day=snapshot_day)


def mark_replacement(workspace: Workspace, proposals: ProposalStore, report: ReviewReport, pid: str) -> None:
    """Record on an approved proposal the MEMORY.md line it replaces (promotion swaps them)."""
    proposal = proposals.get(pid)
    line = contradicted_line(MemoryFiles(workspace).read_memory(), proposal.text, proposal.project) if proposal else None
    if line is None:
        report.messages.append(f"{pid}: no MEMORY.md line states another value of it; added as a new line")
        return
    proposals.update(pid, replaces=line)


def decide_ids(workspace: Workspace, proposals: ProposalStore, *, approve: Sequence[str] = (), reject: Sequence[str] = (),
               today: str, now: datetime, approve_held: bool = False, replace: bool = False) -> ReviewReport:
    """`review approve|reject ID…`: REVIEW.md edits are applied first, so both surfaces agree.
    A held proposal is approved only with `approve_held` (`--held`) and named alone: clearing a
    list never approves held text. `replace`: each approved line takes the place of the MEMORY.md
    line it contradicts."""
    report = ReviewReport()
    with workspace.locked(REVIEW_LOCK):
        read = sync_review_edits(workspace, proposals, report, today, now)
        _expire(proposals, report, today)
        for pid in approve:
            _approve(proposals, report, pid, today, None, "review command", held_ok=approve_held and len(approve) == 1)
            if replace and pid in report.ids("approved"):
                mark_replacement(workspace, proposals, report, pid)
        for pid in reject:
            _reject(proposals, report, pid, today, "review command")
        return _finish(workspace, proposals, report, today, now, expected=read)


def edit_text(workspace: Workspace, proposals: ProposalStore, pid: str, text: str, *, today: str,
              now: datetime) -> ReviewReport:
    """`review edit ID TEXT`: change a pending proposal's text (it stays pending)."""
    text = " ".join(text.split())
    if len(text) < 3:
        raise BadInputError("the new text is empty")
    report = ReviewReport()
    with workspace.locked(REVIEW_LOCK):
        read = sync_review_edits(workspace, proposals, report, today, now)
        current = proposals.get(pid)
        if current is None or current.status != "pending":
            report.errors.append(_why_not(pid, proposals))
        elif text != current.text:
            proposals.update(pid, text=text, original_text=current.original_text or current.text)
            report.outcomes.append(Outcome("edited", pid, text, f"was: {current.text}"))
        return _finish(workspace, proposals, report, today, now, expected=read)


def restore_ids(workspace: Workspace, proposals: ProposalStore, pids: Sequence[str], *, today: str,
                now: datetime) -> ReviewReport:
    """`review restore ID…`: a rejected proposal (by triage or by hand) is pending again."""
    report = ReviewReport()
    with workspace.locked(REVIEW_LOCK):
        read = sync_review_edits(workspace, proposals, report, today, now)
        for pid in pids:
            found = proposals.get(pid)
            if found is None or not proposals.transition(pid, "rejected", "pending", decided="", decided_by="",
                                                         staged=today):  # a new review clock
                report.errors.append(f"{pid} is not a rejected proposal" if found else f"unknown proposal id {pid}")
                continue
            proposals.store.add_pending(pid)
            report.outcomes.append(Outcome("restored", pid, found.text, found.triage_reason or "rejected by hand"))
        return _finish(workspace, proposals, report, today, now, expected=read)
