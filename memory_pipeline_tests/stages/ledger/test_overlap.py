"""The briefing's copy of the recall pack leaves out what the notes above it already say."""

from __future__ import annotations

from memory_pipeline.stages.ledger.overlap import restates, without_notes

NOTES = """### 2025-12-09 · s1 (🔴 observations)

#### Slight steering: why does unsubscribe clear the event…
*The agent modified `agent-session.ts` (48 tool calls).*
* 🔴 (23:10) (said by user) I would assume a user of agentSession would setup their listener once, then assume agent session holds on to them.
* 🔴 (22:50) (said by user) I would only want e2e tests for AgentSession, anything else is shitty.
* 🔴 (23:59) (said by user) Done.
"""

PACK = """## Recall Pack — 2025-12-10 · pi-mono

### 🔴 P0 CONSTRAINTS — Rules that must never be violated
- [EVT-20251209-001] I would only want e2e tests for AgentSession, anything else is shitty. (e2e) (said by user)

### 🎯 TODAY'S FOCUS — Priority work for the day
- [EVT-20251209-006] I would assume a user of agentSession would setup their listener once, then assume agent session holds on to them. (said by user)

### 🧠 CONTEXT — Current projects, recent decisions, state
- [EVT-20251209-002] I would only want e2e tests for AgentSession, anything else is shitty. (e2e) (said by user) ⚠️ STALE
- [EVT-20251209-003] Model/thinking changes always go through one path (model_thinking) (said by assistant)
- [EVT-20251209-015] Done. (said by user)

### 📚 PROCEDURES — Key operational procedures
_none_
"""


def test_pack_lines_the_notes_already_say_are_counted_not_repeated():
    text, dropped = without_notes(PACK, NOTES)
    assert dropped == 2
    assert "I would assume a user" not in text
    assert text.count("e2e tests") == 1  # a P0 constraint stays: that it is one is news the notes do not tell
    lines = text.splitlines()
    focus = lines.index("### 🎯 TODAY'S FOCUS — Priority work for the day")
    assert lines[focus + 1] == "_(1 in the notes above)_"  # a part left with none says so
    context = lines.index("### 🧠 CONTEXT — Current projects, recent decisions, state")
    assert lines[context + 1:context + 5] == [
        "- [EVT-20251209-003] Model/thinking changes always go through one path (model_thinking) (said by assistant)",
        "- [EVT-20251209-015] Done. (said by user)",  # a note of two words is no statement to match
        "_(1 more in the notes above)_", ""]
    assert text.endswith("### 📚 PROCEDURES — Key operational procedures\n_none_\n")


def test_a_pack_with_nothing_in_the_notes_is_unchanged():
    assert without_notes(PACK, "") == (PACK, 0)
    assert without_notes(PACK, "* 🔴 (09:00) (said by user) The deploy script lives in ops/deploy.sh") == (PACK, 0)


def test_a_line_restates_a_note_only_from_its_first_words():
    openings = {("the", "orders", "service", "runs", "on", "postgres", "16")}
    assert restates("- [EVT-1] The orders service runs on Postgres 16. (postgres) (said by user)", openings)
    assert not restates("- [EVT-1] Not yet: the orders service runs on Postgres 16.", openings)
    assert not restates("The orders service runs on Postgres 16.", openings)  # not an event line
