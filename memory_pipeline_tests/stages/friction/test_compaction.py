"""Repeated recovery after compaction: the user re-orienting the agent after its context was compacted."""

from __future__ import annotations

from memory_pipeline.stages.friction.compaction import find_compaction_recovery, session_recoveries
from memory_pipeline_tests.support.friction_windows import window

SUMMARY = "COMPACT: Goal: split main.ts into modes. Plan in docs/refactor.md; next: interactive-mode.ts"
TASK = "Split main.ts into interactive, print and rpc modes, sharing one AgentSession class"


def test_recoveries_after_several_compactions_are_found_with_the_pointer_the_summary_already_had():
    long_session = window("s1", "2026-11-16", [
        TASK, "looks good, start implementing", SUMMARY, "alright, where were we?", "ok continue",
        "wire the print mode next", SUMMARY, "remember the plan in @docs/refactor.md, read it now",
        "Split main.ts into interactive, print and rpc modes, sharing one AgentSession class please",
    ], fmt="pi", cwd="/work/pi")
    [found] = find_compaction_recovery([long_session])
    assert (found.kind, found.sessions, found.occurrences) == ("compaction", ["s1"], 3)
    assert [e.message_ids for e in found.evidence] == [["s1-m3", "s1-m4"], ["s1-m7", "s1-m8"], ["s1-m7", "s1-m9"]]
    assert (found.target, found.target_dir) == ("AGENTS.md", "/work/pi")
    assert "after 2 of 2 compactions in 1 session" in found.draft
    assert "the summary named `docs/refactor.md`, `main.ts` yet the user had to point at them again" in found.draft
    assert found.severity == 2 * 2.0
    observed, transcript = long_session
    assert [r.why for r in session_recoveries(transcript, observed)] == ["re-orienting", "re-orienting", "re-explained"]


def test_recoveries_in_several_sessions_go_to_memory_md():
    sessions = [window(sid, day, [TASK, SUMMARY, "you still there? what were we doing"], cwd=f"/work/{sid}")
                for sid, day in (("s1", "2026-11-16"), ("s2", "2026-11-18"))]
    [found] = find_compaction_recovery(sessions)
    assert found.sessions == ["s1", "s2"] and (found.target, found.target_dir) == ("MEMORY.md", "")


def test_a_single_recovery_and_compactions_the_user_just_continues_after_are_ignored():
    one_off = window("s1", "2026-11-16", [TASK, SUMMARY, "where were we?", "fine", SUMMARY, "continue", "add tests"])
    smooth = window("s2", "2026-11-17", [TASK, SUMMARY, "ok, next the rpc mode", SUMMARY, "now the docs"])
    late = window("s3", "2026-11-18", [TASK, SUMMARY, "a", "b", "c", "d", "where were we?"])  # not right after
    assert find_compaction_recovery([one_off, smooth, late]) == []
