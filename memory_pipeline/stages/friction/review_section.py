"""REVIEW.md's `## Friction Fixes` section, pure: one checkbox line per pending fix, then its
`↳` detail lines (target, severity, evidence). Only the checkbox line is parsed back (by
stages/review/review_md.py, like a proposal's); the detail lines are for the reader. Every value
that came from a transcript (title, folder, quotes) is written through `stages/untrusted`, and the
target is shown exactly as it will be written; fix text the guard holds carries the ⚠ note.
"""

from __future__ import annotations

from memory_pipeline.models import Proposal
from memory_pipeline.stages.guard import held_note
from memory_pipeline.stages.untrusted import code_span, inline

FIXES_HEADING = "## Friction Fixes"
DETAIL_MARK = "↳"
EVIDENCE_SHOWN = 5


def target_label(fix: Proposal) -> str:
    """Where an approved fix goes: `MEMORY.md › Lessons` or the absolute `/repo/CLAUDE.md` it will
    be written to (as code: whatever the folder's name holds, it stays one inline span)."""
    if fix.target == "MEMORY.md":
        return f"`MEMORY.md › {fix.section}`"
    if not fix.target_dir:
        return f"`(project folder unknown)/{fix.target}`"
    return code_span(f"{fix.target_dir.rstrip('/')}/{fix.target}")


def fix_details(fix: Proposal) -> list[str]:
    """The reader's lines under a fix: what, where, how bad, and the evidence it stands on."""
    sessions = len(fix.sessions)
    head = f"**{inline(fix.title)}** · " if fix.title else ""
    lines = [f"{head}target: {target_label(fix)} · severity {fix.severity:g} · "
             f"{sessions} session{'s' if sessions != 1 else ''}"]
    if fix.recurring_of:
        lines.append(f"recurring: approved fix `{fix.recurring_of}` did not stop it")
    for item in fix.evidence[:EVIDENCE_SHOWN]:
        lines.append(f"evidence: {inline(item)}")
    if len(fix.evidence) > EVIDENCE_SHOWN:
        lines.append(f"evidence: … {len(fix.evidence) - EVIDENCE_SHOWN} more (`memory-pipeline review show {fix.id}`)")
    return [f"  {DETAIL_MARK} {line}" for line in lines]


def render_fix_section(fixes: list[Proposal]) -> list[str]:
    """The section's lines (empty when no fix is pending), highest severity first."""
    if not fixes:
        return []
    detected = max(f.created for f in fixes)
    lines = [f"{FIXES_HEADING} (auto-detected {detected})", ""]
    for fix in sorted(fixes, key=lambda f: (-f.severity, f.id)):
        lines.append(f"- [ ] `{fix.id}` {inline(fix.text)}{held_note(fix.text)}")
        lines += fix_details(fix)
    return lines + [""]
