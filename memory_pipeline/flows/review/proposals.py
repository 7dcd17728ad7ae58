"""Staging: a day's reflection becomes proposals in Redis and lines in REVIEW.md.

A draft is not staged when it cites no observation, when MEMORY.md or an earlier pending,
approved or rejected proposal already says it, exactly or nearly (embedding cosine similarity at
or above `similarity`). A proposal that expired unreviewed does not block its text: it may come
back. Ids are p-YYYYMMDD-NNN-xxxx for the reflected day (the day the proposal is about), numbered
after the ids that day already has, with a random part no transcript can predict
(`stages/proposal_ids`); re-materializing a day stages nothing twice; `staged` is
the day it entered review, where its 7-day review clock starts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from memory_pipeline.config import Settings
from memory_pipeline.flows.review.decisions import REVIEW_LOCK, ReviewReport, render_review, sync_review_edits
from memory_pipeline.flows.review.promote import Outcome, log_outcomes
from memory_pipeline.models import Proposal, ProposalDraft, Reflection
from memory_pipeline.ports import Embedder
from memory_pipeline.resources.files.memory_files import MemoryFiles
from memory_pipeline.resources.redis.proposals import ProposalStore, random_suffix
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.proposal_ids import issue_ids
from memory_pipeline.stages.review.memory_md import bullet_texts, for_project
from memory_pipeline.stages.review.review_md import normalize_text, text_key
from memory_pipeline.stages.review.triage import PROMOTE, REJECT, triage
from memory_pipeline.stages.untrusted import inline, project_name
from memory_pipeline.stages.vectors import cosine

NEAR_DUPLICATE_SIMILARITY = 0.85


@dataclass
class StageReport:
    staged: list[Proposal] = field(default_factory=list)
    triaged: list[Proposal] = field(default_factory=list)  # decided by triage at once (rejected, approved)
    skipped: dict[str, str] = field(default_factory=dict)  # draft text -> reason
    pending: int = 0
    review: ReviewReport = field(default_factory=ReviewReport)


def near_duplicates(drafts: list[ProposalDraft], known: list[str], embedder: Embedder, similarity: float) -> dict[int, str]:
    """Index of each draft that is near a known text, or an earlier draft, -> the text it repeats."""
    if not drafts:
        return {}
    vectors = embedder.encode([d.text for d in drafts] + known)
    draft_vectors, known_vectors = vectors[: len(drafts)], vectors[len(drafts):]
    found: dict[int, str] = {}
    for i, vector in enumerate(draft_vectors):
        for text, other in zip(known, known_vectors, strict=False):
            if cosine(vector, other) >= similarity:
                found[i] = text
                break
        else:
            for j in range(i):
                if j not in found and cosine(vector, draft_vectors[j]) >= similarity:
                    found[i] = drafts[j].text
                    break
    return found


def apply_triage(proposal: Proposal, settings: Settings, today: str) -> Proposal:
    """The triage verdict on a new proposal; junk is rejected and, with MEMORY_AUTO_PROMOTE, durable
    statements approved right away (both marked decided_by=triage, both reversible by a person)."""
    verdict = triage(proposal.text, quotes_transcript=proposal.quotes_transcript)
    fields: dict = {"triage": verdict.verdict, "triage_reason": verdict.reason}
    if verdict.verdict == REJECT and settings.auto_reject:
        fields |= {"status": "rejected", "decided": today, "decided_by": "triage"}
    elif verdict.verdict == PROMOTE and settings.auto_promote:
        fields |= {"status": "approved", "decided": today, "decided_by": "triage"}
    return proposal.model_copy(update=fields)


def stage_proposals(
    workspace: Workspace,
    proposals: ProposalStore,
    reflection: Reflection,
    *,
    embedder: Embedder,
    today: str,
    now: datetime,
    similarity: float = NEAR_DUPLICATE_SIMILARITY,
    settings: Settings,
    draw: Callable[[], str] = random_suffix,
) -> StageReport:
    """Store the reflection's new proposals as pending and re-render REVIEW.md (after taking in
    the user's unsynced REVIEW.md edits, so a re-render never drops a tick). `settings` (the
    caller's) say whether triage may auto-reject or auto-promote; `draw`
    gives each new id its random part."""
    report = StageReport()
    with workspace.locked(REVIEW_LOCK):
        seen = sync_review_edits(workspace, proposals, report.review, today, now)
        log_outcomes(workspace, today, now, report.review.outcomes)
        memory = MemoryFiles(workspace).read_memory()
        existing = proposals.all()
        candidates = []
        for draft in reflection.proposals:
            owner = proposals.claimed_by(draft.text, draft.project)
            if not draft.source_observation_ids:
                report.skipped[draft.text] = "cites no observation"
            elif normalize_text(draft.text) and normalize_text(draft.text) in normalize_text(
                    for_project(memory, draft.project)):
                report.skipped[draft.text] = "already in MEMORY.md"
            elif owner:
                status, pid = owner
                report.skipped[draft.text] = f"rejected as {pid}" if status == "rejected" else f"already proposed as {pid}"
            else:
                candidates.append(draft)
        repeats: dict[int, str] = {}
        for project in sorted({d.project for d in candidates}):  # a line repeats within its own scope only
            mine = [i for i, d in enumerate(candidates) if d.project == project]
            known = bullet_texts(for_project(memory, project)) + [
                p.text for p in existing.values() if p.status != "expired" and p.project in ("", project)]
            found = near_duplicates([candidates[i] for i in mine], known, embedder, similarity)
            repeats |= {mine[i]: text for i, text in found.items()}
        fresh = []
        for index, draft in enumerate(candidates):
            if index in repeats:
                report.skipped[draft.text] = f"near-duplicate of: {repeats[index]}"
            else:
                fresh.append(draft)
        ids = issue_ids(reflection.date, list(existing), len(fresh), draw)
        for pid, draft in zip(ids, fresh, strict=False):
            if proposals.store.claim_proposal_text(text_key(draft.text, draft.project), pid) != pid:
                report.skipped[draft.text] = "proposed by another run meanwhile"
                continue
            proposal = Proposal(id=pid, section=draft.section, text=inline(draft.text), created=reflection.date,
                                staged=today,
                                source_observation_ids=draft.source_observation_ids,
                                source_fact_ids=draft.source_fact_ids, sessions=draft.sessions,
                                quotes_transcript=draft.quotes_transcript, original_text=draft.text,
                                project=project_name(draft.project))
            proposal = apply_triage(proposal, settings, today)
            proposals.save(proposal)
            if proposal.status == "rejected":
                proposals.release_text(proposal)  # as a person's rejection: never proposed again
            (report.staged if proposal.status == "pending" else report.triaged).append(proposal)
        log_outcomes(workspace, today, now, [Outcome(p.status, p.id, p.text, f"triage: {p.triage_reason}")
                                             for p in report.triaged])
        render_review(workspace, proposals, now, expected=seen)
        report.pending = len(proposals.pending())
    return report
