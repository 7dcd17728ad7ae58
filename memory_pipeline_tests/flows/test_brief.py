"""build_brief: MEMORY.md, the review nudge, 🔴 observations of today and yesterday within budget."""

from __future__ import annotations

import json
from datetime import timedelta

from memory_pipeline.flows.brief import build_brief
from memory_pipeline.flows.ledger.pack import build_packs
from memory_pipeline.models import Segment
from memory_pipeline.resources.files.ledger_files import LedgerFiles
from memory_pipeline.resources.files.observation_files import observation_path
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.tokens import estimate_tokens
from memory_pipeline_tests.stages.ledger.helpers import TODAY as LATEST
from memory_pipeline_tests.stages.ledger.helpers import Events
from memory_pipeline_tests.support.review_fixtures import fact, observation

TODAY = "2026-11-21"


def write(workspace, item):
    workspace.write_json(observation_path(workspace, item.date, item.dedupe_key), json.loads(item.model_dump_json()))


def seeded(tmp_path) -> Workspace:
    workspace = Workspace(tmp_path / "ws").create()
    workspace.memory_md.write_text("# MEMORY\n\n## Hard Rules\n\n- (2026-11-01) Never use pip <!-- p-20261101-001 -->\n")
    write(workspace, observation("2026-11-17", "old", [Segment(title="Old", facts=[fact("high", "OLD red fact")])]))
    write(workspace, observation("2026-11-20", "yesterday", [Segment(title="Y", facts=[
        fact("high", "Yesterday's red fact about port 6380"), fact("medium", "Yesterday's yellow fact")])],
        current_task="Primary: older task"))
    write(workspace, observation(TODAY, "today", [Segment(title="T", facts=[
        fact("high", "Today's red fact " + "with details " * 20), fact("low", "Today's green fact")])], hour=9,
        current_task="Primary: wire the briefing hook\nSecondary: none"))
    return workspace


def test_brief_holds_memory_red_observations_and_the_latest_task(tmp_path):
    brief = build_brief(seeded(tmp_path), today=TODAY)
    text = brief.text
    assert "- (2026-11-01) Never use pip\n" in text and "<!--" not in text
    assert "Today's red fact" in text and "Yesterday's red fact" in text
    assert "OLD red fact" not in text and "yellow" not in text and "green" not in text
    assert text.index("Today's red fact") < text.index("Yesterday's red fact")  # newest first
    assert brief.current_task == "Primary: wire the briefing hook Secondary: none"
    assert "Session completed normally." not in text and "Suggested response" not in text  # compaction only
    assert brief.pending_proposals == 0 and brief.nudge is None and "📋" not in text


def test_nudge_counts_open_proposals_in_review_md(tmp_path):
    workspace = seeded(tmp_path)
    workspace.review_md.write_text("# Pending Memory Proposals\n\n## Proposed for: Patterns\n"
                                   "- [ ] `p-20261121-001` a\n- [ ] `p-20261121-002` b\n- [x] `p-20261121-003` c\n")
    brief = build_brief(workspace, today=TODAY)
    assert brief.pending_proposals == 2
    assert "📋 2 pending memory proposals in REVIEW.md — review when ready" in brief.text
    assert brief.as_dict()["nudge"] == brief.nudge and brief.as_dict()["text"] == brief.text


def test_the_observation_part_stays_within_the_budget(tmp_path):
    workspace = seeded(tmp_path)
    full = build_brief(workspace, today=TODAY)
    small = build_brief(workspace, today=TODAY, budget_tokens=60)
    assert small.truncated and not full.truncated
    parts = [b["text"] for b in small.observations] + [small.current_task or ""]
    assert small.observation_tokens <= 60 and sum(estimate_tokens(p) for p in parts) <= 60
    assert "Yesterday's red fact" not in small.text and "Yesterday's red fact" in full.text
    assert build_brief(workspace, today=TODAY, budget_tokens=0).observations == []


def test_an_empty_workspace_gives_a_short_brief(tmp_path):
    brief = build_brief(Workspace(tmp_path / "empty").create(), today=TODAY)
    assert "_MEMORY.md is empty._" in brief.text and brief.observations == [] and brief.current_task is None


def shop_ledger(tmp_path) -> Workspace:
    """A workspace whose ledger holds a fact 70 days old and one of yesterday (of project shop), no pack yet."""
    workspace = Workspace(tmp_path / "ws").create()
    log = Events()
    log.add("The orders service runs on Postgres 16", priority="P1", entity="postgres", days_ago=70, project="shop")
    log.add("Deploys go through the staging cluster first", priority="P1", entity="deploys", days_ago=1,
            project="shop")
    LedgerFiles(workspace).append(log.events)
    return workspace


def test_a_briefing_for_an_earlier_day_gets_the_pack_of_its_own_day(tmp_path):
    """`brief --date D` on a workspace whose pack was written later: the pack as of D, from the ledger (not
    what was said after D, nor its facts aged from the later day); a briefing for the pack's day reads the file."""
    workspace = shop_ledger(tmp_path)
    build_packs(workspace, LATEST.isoformat())
    written = LedgerFiles(workspace).read_pack("shop") or ""
    assert "⚠️ STALE" in written and "staging cluster" in written  # 70 days old on the pack's day

    early = (LATEST - timedelta(days=65)).isoformat()
    text = build_brief(workspace, today=early, project="shop").text
    assert f"Recall Pack — {early} · shop" in text and "Postgres 16" in text
    assert "staging cluster" not in text and "⚠️ STALE" not in text
    assert f"Recall Pack — {LATEST.isoformat()} · shop" in build_brief(workspace, today=LATEST.isoformat(),
                                                                       project="shop").text


def test_a_briefing_after_the_written_packs_day_gets_the_pack_of_its_own_day(tmp_path):
    """No daily rebuild since the pack was written (no daemon, history ingested by hand): the briefing's pack is
    today's, from the ledger (what was said since, the ages and STALE flags of today), not the last day ingested."""
    workspace = shop_ledger(tmp_path)
    early = (LATEST - timedelta(days=65)).isoformat()
    build_packs(workspace, early)
    written = LedgerFiles(workspace).read_pack("shop") or ""
    assert f"Recall Pack — {early} · shop" in written and "⚠️ STALE" not in written

    text = build_brief(workspace, today=LATEST.isoformat(), project="shop").text
    assert f"Recall Pack — {LATEST.isoformat()} · shop" in text and f"Recall Pack — {early}" not in text
    assert "staging cluster" in text and "⚠️ STALE" in text
    assert LedgerFiles(workspace).read_pack("shop") == written  # a briefing reads; it writes no pack


def test_a_statement_in_the_notes_is_not_read_again_in_the_pack(tmp_path):
    """The pack's newest events come from the notes the briefing shows above it: each is said once, the
    pack's part counting what is in the notes; when the notes are cut for room, the pack keeps its copy."""
    workspace = Workspace(tmp_path / "ws").create()
    said = "Deploys go through the staging cluster first, never straight to production"
    write(workspace, observation(LATEST.isoformat(), "today", [Segment(title="Deploys", facts=[fact("high", said)])]))
    log = Events()
    log.add(said, priority="P1", entity="deploys", project="shop")
    log.add("The orders service runs on Postgres 17", priority="P1", entity="postgres", days_ago=3, project="shop")
    LedgerFiles(workspace).append(log.events)
    build_packs(workspace, LATEST.isoformat())

    brief = build_brief(workspace, today=LATEST.isoformat(), project="shop")
    assert brief.text.count("staging cluster") == 1 and "Postgres 17" in brief.text
    assert "in the notes above)_" in brief.text
    assert said in (LedgerFiles(workspace).read_pack("shop") or "")  # pack.md itself keeps every line

    filler = "\n".join(f"* 🔴 (08:0{n}) (said by user) note {n} " + "word " * 40 for n in range(9))
    brief.observations[0]["text"] = filler + "\n" + brief.observations[0]["text"]
    brief.max_chars = 3000  # the notes are cut before the statement: it is read in the pack
    fitted = brief.fitted()
    notes, _, pack = fitted.text.partition("## Recall pack")
    assert "the notes" in fitted.left_out and "staging cluster" not in notes and "staging cluster" in pack


def test_a_task_that_is_a_note_points_at_it_instead_of_quoting_it_again(tmp_path):
    """The offline Observer's task is the session's last request, which its last note already quotes: the
    line above the notes says where it is; a task the notes do not state is quoted; a briefing whose notes
    are cut for room quotes it again."""
    workspace = Workspace(tmp_path / "ws").create()
    asked = "No, we want to put it in pendingMessageContainer and move it to the chat on the next submit"
    write(workspace, observation(TODAY, "today", [Segment(title="Bash", facts=[fact("high", asked)])], hour=9,
                                 current_task=f"Primary: {asked}.\nSecondary: none"))
    brief = build_brief(workspace, today=TODAY)
    assert brief.text.count("pendingMessageContainer") == 1
    assert "Last session's task (as observed): the request " in brief.text and "in the notes below." in brief.text

    brief.current_task = f"Primary: {asked}. Secondary: rename the RPC mode file"  # a second request, not a note
    assert brief.text.count("pendingMessageContainer") == 2 and "rename the RPC mode file" in brief.text
    brief.current_task = f"Primary: {asked}. Secondary: n/a"  # no second request, as the notes' task line reads it
    assert brief.text.count("pendingMessageContainer") == 1
    brief.current_task = "Primary: wire the briefing hook Secondary: none"
    assert "Primary: wire the briefing hook" in brief.text

    brief.current_task = f"Primary: {asked}. Secondary: none"
    brief.observations[0]["text"] += "\n" + "\n".join(f"* 🔴 (10:0{n}) (said by user) note {n} " + "word " * 40
                                                      for n in range(9))
    brief.max_chars = 2000  # the note is cut: the task line says it whole
    fitted = brief.fitted()
    assert "the notes" in fitted.left_out and f"Primary: {asked}" in fitted.text


def test_a_memory_line_a_pending_proposal_changes_is_flagged_for_the_session_of_its_project(tmp_path):
    workspace = Workspace(tmp_path / "ws").create()
    workspace.memory_md.write_text("# MEMORY\n\n## Patterns — shop\n\n"
                                   "- (2026-11-01) We use npm for this repo. <!-- p-20261101-001-aaaa -->\n"
                                   "- (2026-11-01) The frontend is built with Webpack. <!-- p-20261101-002-bbbb -->\n")
    workspace.review_md.write_text("# Pending Memory Proposals\n\n## Proposed for: Patterns — shop\n"
                                   "- [ ] `p-20261120-001-cccc` We use pnpm now. _(quotes transcript)_\n")
    shown = build_brief(workspace, today=TODAY, project="shop").memory_md
    assert "- (2026-11-01) We use npm for this repo. ⚠️ _may be out of date: a pending proposal in REVIEW.md" in shown
    assert "Webpack.\n" in shown and "<!--" not in shown  # the other line as it was; markers taken off
    assert "pnpm" not in shown  # the proposal's own words stay out of the reviewed part
    from memory_pipeline.flows.hooks.context import after_compaction
    again = after_compaction(workspace, "shop", None)  # the reviewed lines given back after a compaction
    assert again is not None and "We use npm for this repo. ⚠️ _may be out of date" in again.text
    workspace.review_md.write_text(workspace.review_md.read_text().replace("- [ ]", "- [-]"))  # rejected
    assert "⚠️" not in build_brief(workspace, today=TODAY, project="shop").memory_md
