"""Fix wording (prompt in, answer parsed, offline drafts), REVIEW.md's Friction Fixes section, and
the marked section of a project's CLAUDE.md."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memory_pipeline.models import Proposal
from memory_pipeline.prompts import load_prompt
from memory_pipeline.stages.friction.findings import Evidence, Finding
from memory_pipeline.stages.friction.project_file import FIXES_SECTION, append_fix
from memory_pipeline.stages.friction.wording import parse_fixes, render_findings, word_fixes_offline
from memory_pipeline.stages.review.review_md import decide, parse_review_md, render_review_md

NOW = datetime(2026, 11, 22, 7, 0, tzinfo=timezone.utc)


def finding(pattern: str = "Use uv not pip") -> Finding:
    evidence = [Evidence(day="2026-11-15", time="09:00", session_id="s1", observation_id="o1",
                         message_ids=["m1"], quote="no, use uv <not> pip")]
    return Finding(kind="correction", pattern=pattern, sessions=["s1", "s2"], occurrences=2, impact=3.0,
                   severity=6.0, evidence=evidence, title="Lesson: use uv not pip",
                   draft="Use uv not pip (the user had to say this in 2 sessions).")


def test_offline_wording_returns_the_drafts_and_parses_back():
    system, user = load_prompt("friction").render(memory_md="(empty)", day="2026-11-21",
                                                   findings=render_findings([finding(), finding("Keep it short")]))
    assert "no, use uv &lt;not&gt; pip" in user and '<finding ref="X2"' in user
    wordings = parse_fixes(word_fixes_offline(system, user), ["X1", "X2"])
    assert wordings["X1"].change == "Use uv not pip (the user had to say this in 2 sessions)."
    assert wordings["X1"].title == "Lesson: use uv not pip" and set(wordings) == {"X1", "X2"}


def test_model_answers_keep_known_refs_only_and_fail_when_unusable():
    answer = '<fix ref="X1"><title>T</title><change>Use `uv pip install`.</change></fix><fix ref="X9"><change>x y z</change></fix>'
    assert list(parse_fixes(answer, ["X1", "X2"])) == ["X1"]
    assert parse_fixes("<none/>", ["X1"]) == {}
    with pytest.raises(ValueError):
        parse_fixes("Here are my thoughts on the findings.", ["X1"])


def fix(number: int, text: str, **fields) -> Proposal:
    return Proposal(id=f"f-20261121-{number:03d}", section="Lessons", text=text, created="2026-11-21",
                    title="Lesson", severity=9.0, sessions=["s1", "s2", "s3"],
                    evidence=["2026-11-15 09:00 session `s1` · cites p-20261101-001 by accident"], **fields)


def test_review_md_renders_fixes_under_their_section_and_reads_ticks_back():
    pending = [Proposal(id="p-20261121-001", section="Patterns", text="Share one Redis pool", created="2026-11-21"),
               fix(1, "Use uv not pip."), fix(2, "Run `pnpm run build`.", target="CLAUDE.md", target_dir="/work/app")]
    text = render_review_md(pending, NOW)
    assert "## Friction Fixes (auto-detected 2026-11-21)" in text and "target: `/work/app/CLAUDE.md`" in text
    assert "target: `MEMORY.md › Lessons`" in text and "1 proposal, 2 friction fixes pending" in text
    ticked = text.replace("- [ ] `f-20261121-001` Use uv not pip.", "- [x] `f-20261121-001` Use uv, never pip.")
    ticked = ticked.replace("- [ ] `f-20261121-002`", "- [-] `f-20261121-002`")
    decisions = decide(parse_review_md(ticked), {}, {p.id: p for p in pending})
    assert decisions.approve == {"f-20261121-001": "Use uv, never pip."} and decisions.reject == ["f-20261121-002"]
    assert not decisions.unknown and not decisions.messages  # detail lines are never read as items


def test_project_file_gets_a_marked_section_and_keeps_every_line():
    original = "# Project\n\nRun `make dev` to start.\n"
    once = append_fix(original, "2026-11-21", "Use `pnpm run build`.", "f-20261121-002")
    assert once.startswith(original) and FIXES_SECTION in once
    assert once.endswith("- (2026-11-21) Use `pnpm run build`. <!-- f-20261121-002 -->\n")
    assert append_fix(once, "2026-11-21", "Use `pnpm run build`.", "f-20261121-002") == once
    edited = once + "\n## Notes\n\nmine\n"
    twice = append_fix(edited, "2026-11-22", "Run tests with -x.", "f-20261122-001")
    assert twice.index("f-20261122-001") < twice.index("## Notes") and all(l in twice for l in edited.splitlines())
    assert append_fix("", "2026-11-21", "A rule.", "f-20261121-003").startswith(FIXES_SECTION)
