"""REVIEW.md and MEMORY.md, pure: ids, rendering, parsing a user's edits, expiry, appending."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memory_pipeline.models import Proposal
from memory_pipeline.stages.review.memory_md import (
    append_to_sections,
    bullet_texts,
    lines_lost,
    promoted_ids,
    promoted_line,
    untraceable_ids,
)
from memory_pipeline.stages.review.review_md import (
    REVIEW_HEADING,
    decide,
    is_expired,
    parse_review_md,
    render_review_md,
    text_key,
)

NOW = datetime(2026, 11, 21, 18, 0, tzinfo=timezone.utc)


def proposal(pid: str, section: str = "Patterns", text: str = "Share one Redis pool per process", **kw) -> Proposal:
    return Proposal(id=pid, section=section, text=text, created=kw.pop("created", "2026-11-21"), **kw)


PENDING = [proposal("p-20261121-002", "Hard Rules", "Never use pip", quotes_transcript=True),
           proposal("p-20261121-001", "System Architecture", "Redis listens on 6380"),
           proposal("p-20261121-003")]


def test_a_text_key_ignores_case_and_punctuation():
    assert text_key("Never use PIP!") == text_key("never use pip")


def test_review_md_is_grouped_by_section_with_checkboxes_and_counts():
    text = render_review_md(PENDING, NOW)
    lines = text.splitlines()
    assert lines[0] == REVIEW_HEADING and "_Reviewed by Reflector on 2026-11-21." in text
    assert lines.index("## Proposed for: Hard Rules") < lines.index("## Proposed for: System Architecture")
    assert "- [ ] `p-20261121-002` Never use pip _(quotes transcript)_" in lines
    assert lines[-1].startswith("_Last updated: 2026-11-21T") and lines[-1].endswith("| 3 proposals pending_")
    assert "_No proposals pending._" in render_review_md([], NOW)


def states():
    return {p.id: p for p in PENDING}


def rendered():
    return {p.id: p.text for p in PENDING}


def test_ticks_deletions_and_edits_become_decisions():
    text = render_review_md(PENDING, NOW)
    text = text.replace("- [ ] `p-20261121-002`", "- [x] `p-20261121-002`")
    text = text.replace("Redis listens on 6380", "Redis 7 listens on port 6380")
    text = "\n".join(line for line in text.splitlines() if "p-20261121-003" not in line)
    decisions = decide(parse_review_md(text), rendered(), states())
    assert decisions.approve == {"p-20261121-002": "Never use pip"}  # the quote note is not part of the text
    assert decisions.edit == {"p-20261121-001": "Redis 7 listens on port 6380"}
    assert decisions.reject == ["p-20261121-003"] and decisions.messages == []


def test_a_mangled_file_gives_messages_not_rejections():
    text = ("Pending stuff (heading deleted)\n- [x] `p-20261121-002` Never use pip\n- [x] my own rule\n"
            "- [x] `p-20991231-001` typo id\n- [ ] `p-20261121-001` Redis listens on 6380\n"
            "- [-] `p-20261121-001` Redis listens on 6380\n* [x p-20261121-003 broken checkbox")
    parsed = parse_review_md(text)
    decisions = decide(parsed, rendered(), states())
    assert decisions.approve == {"p-20261121-002": "Never use pip"}
    assert decisions.reject == ["p-20261121-001"]  # the duplicate's only decisive mark
    assert decisions.damaged(parsed)
    joined = " | ".join(decisions.messages)
    assert "no proposal id" in joined and "unknown proposal id p-20991231-001" in joined
    assert "appears 2 times" in joined
    headless = decide(parse_review_md("garbage"), rendered(), states())
    assert headless.reject == [] and "lost its" in headless.messages[0]


def test_conflicting_marks_and_decided_ids_are_left_alone():
    text = f"{REVIEW_HEADING}\n- [x] `p-20261121-002` a\n- [-] `p-20261121-002` a\n- [x] `p-20261121-001` b\n"
    done = states() | {"p-20261121-001": proposal("p-20261121-001", status="expired", decided="2026-11-28")}
    decisions = decide(parse_review_md(text), {"p-20261121-002": "a"}, done)
    assert decisions.approve == {} and decisions.reject == []
    assert any("both approved and rejected" in m for m in decisions.messages)
    assert any("already expired" in m for m in decisions.messages)


@pytest.mark.parametrize(("today", "expired"), [("2026-11-27", False), ("2026-11-28", True)])
def test_pending_proposals_expire_after_seven_days(today, expired):
    assert is_expired(proposal("p-20261121-001"), today) is expired
    assert not is_expired(proposal("p-20261121-001", status="approved"), "2027-01-01")


def test_promotion_appends_to_sections_and_creates_missing_ones_without_touching_lines():
    hand = "# My memory\n\n## Hard Rules\n\n- never force-push main   \n\nfree text the user wrote\n\n## Notes\n- keep\n"
    out = append_to_sections(hand, [("Hard Rules", promoted_line("2026-11-21", "Never use pip", "p-20261121-001")),
                                     ("Patterns", promoted_line("2026-11-21", "Share the pool", "p-20261121-002"))])
    assert lines_lost(hand, out) == []
    lines = out.splitlines()
    assert lines.index("- (2026-11-21) Never use pip <!-- p-20261121-001 -->") == lines.index("free text the user wrote") + 1
    assert lines[-3:] == ["## Patterns", "", "- (2026-11-21) Share the pool <!-- p-20261121-002 -->"]
    assert promoted_ids(out) == {"p-20261121-001", "p-20261121-002"}
    assert bullet_texts(out) == ["never force-push main", "Never use pip", "keep", "Share the pool"]
    fresh = append_to_sections("", [("User", "- (2026-11-21) Prefers small commits <!-- p-20261121-003 -->")])
    assert fresh.startswith("# MEMORY\n\n## User\n\n- (2026-11-21) Prefers small commits")


def test_checks_find_lost_lines_and_untraceable_promotions():
    before = "# M\n- a\n- b\n- b\n"
    assert lines_lost(before, "# M\n- b\n- a\n") == ["- b"]
    now = before + "- (2026-11-21) x <!-- p-20261121-001 -->\n- (2026-11-21) y <!-- p-20261121-009 -->\n"
    assert untraceable_ids(now, before, {"p-20261121-001"}) == ["p-20261121-009"]


def test_the_pending_count_a_session_is_told_is_its_projects_own():
    from memory_pipeline.stages.review.review_md import pending_for

    shop = proposal("p-20261121-001").model_copy(update={"project": "shop", "section": "Hard Rules"})
    api = proposal("p-20261121-002").model_copy(update={"project": "api", "section": "Hard Rules"})
    api_too = proposal("p-20261121-003").model_copy(update={"project": "api", "section": "Patterns"})
    everywhere = proposal("p-20261121-004").model_copy(update={"project": "", "section": "User"})
    text = render_review_md([shop, api, api_too, everywhere], datetime(2026, 11, 21, tzinfo=timezone.utc))
    assert pending_for(text, None) == 4
    assert pending_for(text, "shop") == 2  # its own and the plain section's
    assert pending_for(text, "api") == 3
    assert pending_for(text, "newrepo") == 1  # a new repository: only what applies everywhere
    assert pending_for(text.replace("- [ ] `p-20261121-002`", "- [x] `p-20261121-002`"), "api") == 2
    assert pending_for(None, "shop") == 0


def test_a_proposal_that_changes_a_lines_value_is_found_and_can_replace_it():
    from memory_pipeline.stages.review.memory_md import changes_value, contradicted_line, replace_line

    memory = ("# MEMORY\n\n## System Architecture — orders\n\n"
              "- (2026-11-01) The orders service runs on Postgres 16 <!-- p-20261101-001-aaaa -->\n"
              "- (2026-11-01) Billing calls time out after 10 seconds <!-- p-20261101-002-bbbb -->\n\n"
              "## System Architecture — shop\n\n- (2026-11-01) The shop runs on Postgres 14\n")
    old = "- (2026-11-01) The orders service runs on Postgres 16 <!-- p-20261101-001-aaaa -->"
    assert contradicted_line(memory, "We moved the orders service to Postgres 17", "orders") == old
    assert contradicted_line(memory, "We moved to Postgres 17 last week", "orders") == old
    assert contradicted_line(memory, "Billing calls time out after 30 seconds", "orders").startswith("- (2026-11-01) Billing")
    assert contradicted_line(memory, "Use uv for every install", "orders") is None
    assert contradicted_line(memory, "The shop runs on Postgres 15", "shop") == "- (2026-11-01) The shop runs on Postgres 14"
    assert contradicted_line(memory, "The reports replica runs on Postgres 15", "orders") is None  # another thing
    assert not changes_value("Keep 2 of 5 replicas warm", "Retry 3 of 10 calls")
    new = promoted_line("2026-11-28", "We moved the orders service to Postgres 17", "p-20261128-001-cccc")
    replaced = replace_line(memory, old, new)
    assert replaced is not None and "Postgres 16" not in replaced and new in replaced
    assert replaced.count("\n") == memory.count("\n")  # one line swapped, nothing else moved
    assert replace_line(memory, "- a line the user removed", new) is None


def test_a_line_a_pending_proposal_changes_is_flagged_before_its_marker():
    from memory_pipeline.stages.review.memory_md import CHANGED_NOTE, flag_changed, without_marker

    memory = ("## Patterns — shop\n\n- (2026-11-01) We use npm for this repo. <!-- p-20261101-001-aaaa -->\n"
              "- (2026-11-01) Deploys go through Jenkins. <!-- p-20261101-002-bbbb -->\n")
    flagged = flag_changed(memory, ["We use pnpm now.", "Use uv for every install"])
    assert flagged.splitlines()[2] == ("- (2026-11-01) We use npm for this repo." + CHANGED_NOTE
                                       + " <!-- p-20261101-001-aaaa -->")
    assert flagged.splitlines()[3] == memory.splitlines()[3]
    assert without_marker(flagged).splitlines()[2].endswith(CHANGED_NOTE)
    assert flag_changed(memory, []) == memory


def test_an_update_without_numbers_is_found_against_the_line_it_updates():
    from memory_pipeline.stages.review.memory_md import changes_value

    assert changes_value("Our tests run on Jest.", "Tests run on Vitest these days, not Jest.")  # names the old value
    assert changes_value("We use npm for this repo.", "We dropped npm for pnpm.")
    assert changes_value("Deploys go through Jenkins.", "Deploys go through Argo CD now.")  # the same said of it
    assert changes_value("We use npm for this repo.", "We use pnpm now.")  # another tool of the same job
    assert not changes_value("npm install fails with EACCES on the CI runner.", "We use pnpm now.")  # a mention
    assert not changes_value("Deploys go through Jenkins.", "Deploys need a green build.")  # no update
    assert not changes_value("Always run the migrations before deploying.", "Deploys go through Argo CD now.")
    assert not changes_value("Deploys go through Jenkins.", "Deploys go through Jenkins and Argo CD.")  # adds, no update
    assert not changes_value("The orders service runs on Postgres 16.", "The orders service calls the billing API now.")
    assert not changes_value("Redis is on the old box.", "Redis is on port 6380 now.")  # another thing said of it


def test_a_proposal_pending_more_than_five_days_warns_that_it_expires_and_parses_back_clean():
    from memory_pipeline.stages.review.review_md import expiry_note

    young, old = proposal("p-20261121-001", staged="2026-11-21"), proposal("p-20261115-002", staged="2026-11-15")
    assert expiry_note(young, "2026-11-26") == ""  # 5 days: no warning yet
    assert "expires in 1 day" in expiry_note(young, "2026-11-27")  # 6 days
    text = render_review_md([young, old], datetime(2026, 11, 21, 18, 0, tzinfo=timezone.utc))
    line = next(line for line in text.splitlines() if "p-20261115-002" in line)
    assert "⏳ expires in 1 day" in line
    parsed = {line.pid: line.text for line in parse_review_md(text).lines}
    assert parsed["p-20261115-002"] == parsed["p-20261121-001"] == "Share one Redis pool per process"
