"""A long history's SessionStart context, built to Claude Code's 10,000-character cap: MEMORY.md
whole, the last task and the newest notes kept, the recall pack cut by whole lines, every fence
closed, and a last line saying what was left out and how to get it."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

from memory_pipeline.config import Settings
from memory_pipeline.flows.brief import build_brief
from memory_pipeline.flows.hooks.reply import hook_reply
from memory_pipeline.models import Segment
from memory_pipeline.resources.files.ledger_files import LedgerFiles
from memory_pipeline.resources.files.observation_files import observation_path
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.support.review_fixtures import fact, observation

TODAY = datetime.now().astimezone().date().isoformat()
CAP = 10_000
TASK = "Primary: move the billing export to the new queue"


def long_history(tmp_path) -> Workspace:
    """30 reviewed MEMORY.md lines, a 17,000-character recall pack, ten sessions of today's 🔴 notes."""
    workspace = Workspace(tmp_path / "ws").create()
    rules = "\n".join(f"- (2026-10-{n % 28 + 1:02d}) Reviewed rule {n}: keep the {n}th thing as it is" for n in range(30))
    workspace.memory_md.write_text(f"# MEMORY\n\n## Hard Rules\n\n{rules}\n")
    sections = ["🔴 P0 CONSTRAINTS", "📋 OPEN COMMITMENTS", "🧠 CONTEXT", "🔑 ACCOUNTS"]
    pack = ["## Recall Pack — today · billing", ""]
    for name in sections:
        pack += [f"### {name}"] + [f"- [EVT-2026110{n % 9}-{n:03d}] {name.split()[-1].lower()} item {n}: "
                                   + "a remembered detail with `code` " * 3 for n in range(40)] + [""]
    LedgerFiles(workspace).write_pack("billing", "\n".join(pack))  # the project the session runs in
    assert len("\n".join(pack)) > 17_000
    for hour in range(10):
        facts = [fact("high", f"Session {hour} red fact {n} about the billing export and its queue") for n in range(8)]
        item = observation(TODAY, f"session-{hour}", [Segment(title=f"S{hour}", facts=facts)], hour=hour,
                           current_task=TASK if hour == 9 else f"Primary: task of session {hour}")
        workspace.write_json(observation_path(workspace, item.date, item.dedupe_key), json.loads(item.model_dump_json()))
    return workspace


def fences(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.fullmatch(r"`{3,}(text)?", line)]


def test_the_session_start_context_fits_the_cap_by_construction(tmp_path):
    workspace = long_history(tmp_path)
    whole = build_brief(workspace, today=TODAY, project="billing").text
    assert len(whole) > 2 * CAP  # what the hook would have had to cut
    raw = json.dumps({"session_id": "s-1", "hook_event_name": "SessionStart", "source": "startup",
                      "cwd": str(tmp_path / "billing")}).encode()
    out, err = hook_reply(raw, Settings(workspace=workspace.root), datetime.now(timezone.utc))
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert len(context) <= CAP and not context.endswith("…"), (len(context), err)
    opened = fences(context)
    assert len(opened) % 2 == 0 and all(o == c + "text" for o, c in zip(opened[::2], opened[1::2]))  # each closed
    assert all(f"Reviewed rule {n}:" in context for n in range(30))  # MEMORY.md first, whole
    assert TASK in context and "Session 9 red fact 0 about" in context  # the last task and the newest notes
    shown = [line for line in context.splitlines()[1:-1]  # the title names the project, the footer is the hook's
             if not line.startswith(("_Scope: ", "_Memory observed by "))]
    assert set(shown) <= set(whole.splitlines())  # whole lines only
    last = context.splitlines()[-1]
    assert last.startswith("_Left out to fit the 10,000-character briefing: ") and "of the recall pack" in last
    assert "memory-pipeline brief" in last and "`search`" in last
    assert context.index("## Notes observed") < context.index("## Recall pack")  # the notes come before the pack
    assert all(f"#### {name}" in context and f"{name.split()[-1].lower()} item 0:" in context
               for name in ("🔴 P0 CONSTRAINTS", "📋 OPEN COMMITMENTS", "🧠 CONTEXT", "🔑 ACCOUNTS"))  # each part's first


def test_a_briefing_under_the_cap_is_whole(tmp_path):
    workspace = Workspace(tmp_path / "small").create()
    workspace.memory_md.write_text("# MEMORY\n\n## Hard Rules\n\n- (2026-11-01) Never use pip\n")
    brief = build_brief(workspace, today=TODAY, max_chars=CAP)
    assert brief.fitted().complete and "Left out" not in brief.text and brief.text == build_brief(workspace, today=TODAY).text
