"""A memory (an approved MEMORY.md line, an active ledger event) contradicted by recent statements."""

from __future__ import annotations

from datetime import datetime, timezone

from memory_pipeline.stages.friction.contradiction import find_contradictions, ledger_memories, memory_lines
from memory_pipeline.stages.friction.said import window_statements
from memory_pipeline.stages.ledger.model import LedgerEvent
from memory_pipeline.stages.ledger.state import LedgerState
from memory_pipeline_tests.support.friction_windows import window

MEMORY_MD = """# MEMORY

## Hard Rules

- Use Node 18 for the web app. [verified: 2026-11-01]
- Never force-push to main.

## Lessons

- The staging database runs on port 5432 (p-20261101-001)

## Friction fixes (memory-pipeline)

- Use Node 16 for the docs site
"""


def event(number: int, day: str, content: str, supersedes: str | None = None) -> LedgerEvent:
    return LedgerEvent(ts=datetime.fromisoformat(f"{day}T08:00:00").replace(tzinfo=timezone.utc),
                       id=f"EVT-{day.replace('-', '')}-{number:03d}", type="fact", priority="P2", content=content,
                       source="manual", supersedes=supersedes, message_ids=[f"src-{number}"])


def sessions():
    return [
        window("s1", "2026-11-15", ["We moved the web app to node 20 last week", "force-push to main is fine today"]),
        window("s2", "2026-11-17", ["Build it with Node 20 please"]),
        window("s3", "2026-11-18", ["the staging database runs on port 5433 now"]),
        window("s4", "2026-11-19", ["the docs site is fine as it is"]),
    ]


def test_memory_lines_are_the_bullets_of_memory_md_sections_without_review_marks():
    lines = memory_lines(MEMORY_MD)
    assert [(m.section, m.text) for m in lines] == [
        ("Hard Rules", "Use Node 18 for the web app."), ("Hard Rules", "Never force-push to main."),
        ("Lessons", "The staging database runs on port 5432")]


def test_a_memory_contradicted_in_two_sessions_is_found_and_one_offs_are_ignored():
    [node] = find_contradictions(memory_lines(MEMORY_MD), window_statements(sessions()), min_sessions=2)
    assert (node.kind, node.pattern, node.sessions, node.section) == (
        "contradiction", "Use Node 18 for the web app.", ["s1", "s2"], "Hard Rules")
    assert [(e.session_id, e.message_ids) for e in node.evidence] == [("s1", ["s1-m1"]), ("s2", ["s2-m1"])]
    assert node.draft.startswith("Now: Build it with Node 20 please — this replaces “Use Node 18 for the web app”")
    # force-push (opposite polarity) and the port (another number) were contradicted in one session only
    assert len(find_contradictions(memory_lines(MEMORY_MD), window_statements(sessions()), min_sessions=1)) == 3


def test_a_memory_the_latest_statement_agrees_with_again_is_not_contradicted():
    back = sessions()[:2] + [window("s5", "2026-11-20", ["ok, back on Node 18 for the web app"])]
    assert find_contradictions(memory_lines(MEMORY_MD), window_statements(back), min_sessions=2) == []


def test_an_active_ledger_event_is_contradicted_only_by_what_was_said_after_it():
    old = event(1, "2026-11-10", "The staging database runs on port 5432")
    replaced = event(2, "2026-11-10", "The cache uses Redis 6")
    events = [old, replaced, event(3, "2026-11-11", "The cache uses Redis 7", supersedes=replaced.id)]
    later = [window("s3", "2026-11-18", ["the staging database runs on port 5433 now"]),
             window("s6", "2026-11-19", ["staging database runs on port 5433, remember"]),
             window("s7", "2026-11-19", ["the cache uses Redis 6 again? no, Redis 7"])]
    memories = ledger_memories(LedgerState.of(events).active())
    assert [m.where for m in memories] == [old.id, events[2].id]
    [port] = find_contradictions(memories, window_statements(later), min_sessions=2)
    assert (port.pattern, port.sessions) == ("The staging database runs on port 5432", ["s3", "s6"])
    assert "from the ledger's EVT-20261110-001" in port.draft
    before = [window("s0", "2026-11-09", ["staging database runs on port 5433"])] + later[:1]
    assert find_contradictions(memories, window_statements(before), min_sessions=2) == []


def test_a_message_restating_the_memory_whole_does_not_contradict_it_through_one_sentence():
    said = "No, don't use pip here. This repo uses uv: run `uv sync` and `uv run pytest`."
    memories = ledger_memories([event(1, "2026-11-16", said)])
    again = [window(f"s{n}", f"2026-11-1{7 + n}", [said + " I've told you this before."]) for n in range(2)]
    assert find_contradictions(memories, window_statements(again), min_sessions=2) == []
