"""REVIEW.md's `## Friction Fixes` section, pure: one checkbox line per pending fix, then its
`↳` detail lines (target, severity, evidence). Only the checkbox line is parsed back (by
stages/review/review_md.py, like a proposal's); the detail lines are for the reader.
"""

from __future__ import annotations

from memory_pipeline.models import Proposal

FIXES_HEADING = "## Friction Fixes"
DETAIL_MARK = "↳"
EVIDENCE_SHOWN = 5


def target_label(fix: Proposal) -> str:
    """Where an approved fix goes: `MEMORY.md › Lessons` or `<project>/CLAUDE.md`."""
    if fix.target == "MEMORY.md":
        return f"MEMORY.md › {fix.section}"
    folder = fix.target_dir.rstrip("/") or "(project folder unknown)"
    return f"{folder}/{fix.target}"


def fix_details(fix: Proposal) -> list[str]:
    """The reader's lines under a fix: what, where, how bad, and the evidence it stands on."""
    sessions = len(fix.sessions)
    head = f"**{fix.title}** · " if fix.title else ""
    lines = [f"{head}target: `{target_label(fix)}` · severity {fix.severity:g} · "
             f"{sessions} session{'s' if sessions != 1 else ''}"]
    if fix.recurring_of:
        lines.append(f"recurring: approved fix `{fix.recurring_of}` did not stop it")
    for item in fix.evidence[:EVIDENCE_SHOWN]:
        lines.append(f"evidence: {item}")
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
        lines.append(f"- [ ] `{fix.id}` {fix.text}")
        lines += fix_details(fix)
    return lines + [""]
