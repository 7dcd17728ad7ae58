"""The behaviour loop's memory, pure: is a finding new, already proposed, or back after a fix?

A finding matches an earlier fix when their patterns are close (cosine of the given vectors ≥
`similar`) and of the same kind. Then:
- pending: already waiting for review, nothing new to stage;
- rejected or expired: the user said no (or let it lapse), not proposed again;
- approved, no occurrence after the approval day: fixed, nothing to do;
- approved, occurrences after the approval day: recurring — the fix did not work. The finding
  keeps only the later evidence and is escalated (a Lesson becomes a Hard Rule).
"""

from __future__ import annotations

from dataclasses import dataclass

from memory_pipeline.models import Proposal
from memory_pipeline.stages.friction.findings import Finding
from memory_pipeline.stages.vectors import cosine

SAME_PATTERN = 0.8


@dataclass(frozen=True)
class Match:
    status: str  # "new", "pending", "rejected", "expired", "fixed" or "recurring"
    fix_id: str = ""


def match_fix(finding: Finding, vector: list[float], fixes: list[tuple[Proposal, list[float]]],
              similar: float = SAME_PATTERN) -> Match:
    """How `finding` relates to the earlier fixes (each with its pattern's vector); the approved
    fix wins over other matches, the most recent first."""
    matched = [fix for fix, other in fixes
               if fix.friction_kind == finding.kind and cosine(vector, other) >= similar]
    approved = sorted((f for f in matched if f.status == "approved"), key=lambda f: f.decided or "", reverse=True)
    if approved:
        fix = approved[0]
        later = [e for e in finding.evidence if e.day > (fix.decided or fix.created)]
        return Match("recurring" if later else "fixed", fix.id)
    for status in ("pending", "rejected", "expired"):
        found = next((f for f in matched if f.status == status), None)
        if found:
            return Match(status, found.id)
    return Match("new")


def escalate(finding: Finding, fix: Proposal) -> Finding:
    """The recurring finding as a stronger fix: only what happened after the approval, a Lesson
    raised to a Hard Rule, and the approved fix it follows named."""
    since = fix.decided or fix.created
    evidence = [e for e in finding.evidence if e.day > since]
    sessions = list(dict.fromkeys(e.session_id for e in evidence))
    section = "Hard Rules" if fix.target == "MEMORY.md" else fix.section
    change = f"{finding.draft.rstrip('.')} — still recurring after the fix approved on {since}."
    return finding.model_copy(update={
        "evidence": evidence, "sessions": sessions, "occurrences": len(evidence),
        "severity": len(sessions) * finding.impact * 2, "section": section, "recurring_of": fix.id,
        "title": f"Still recurring: {finding.title}", "draft": change,
    })
