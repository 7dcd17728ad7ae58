"""Clustering, severity, targets, drafts and the behaviour loop's matching, over given vectors."""

from __future__ import annotations

import math

import pytest

from memory_pipeline.models import Proposal
from memory_pipeline.stages.friction.cluster import cluster_signals
from memory_pipeline.stages.friction.findings import Finding, find_friction, ranked, too_little_data
from memory_pipeline.stages.friction.recurrence import escalate, match_fix
from memory_pipeline.stages.friction.signals import Signal, identifiers


def unit(*values: float) -> list[float]:
    norm = math.sqrt(sum(v * v for v in values))
    return [v / norm for v in values]


def correction(text: str, session: str, day: str) -> Signal:
    return Signal(kind="correction", text=text, session_id=session, observation_id=f"obs-{session}", day=day,
                  message_ids=(f"{session}-m1",), time="09:00", identifiers=identifiers(text), agent="claude-code")


def failure(session: str, day: str, error: str = "cannot find module 'vite'", cwd: str = "/work/app",
            then: str = "") -> Signal:
    return Signal(kind="command-failure", text=f"`npm run build` → {error}", session_id=session,
                  observation_id=f"obs-{session}", day=day, message_ids=(f"{session}-a", f"{session}-t"),
                  key=f"npm run | {error}", command="npm run", then=then, cwd=cwd, agent="claude-code")


def test_clusters_join_by_similarity_by_shared_identifiers_or_by_key():
    signals = [correction("Use uv not pip", "s1", "2026-11-15"),
               correction("Use uv instead of pip!", "s2", "2026-11-16"),  # related + same identifiers
               correction("Keep commits small", "s3", "2026-11-16"),
               failure("s4", "2026-11-17"), failure("s5", "2026-11-18")]  # same key, different vectors
    vectors = [unit(1, 0, 0, 0), unit(0.6, 0.8, 0, 0), unit(0, 0, 1, 0), unit(0, 0, 0, 1), unit(0, 1, 0, 0)]
    assert cluster_signals(signals, vectors) == [[0, 1], [3, 4], [2]]
    with pytest.raises(ValueError):
        cluster_signals(signals, vectors[:2])


def test_findings_need_two_sessions_and_score_sessions_times_impact():
    signals = [correction("Use uv not pip", s, d) for s, d in (("s1", "2026-11-15"), ("s2", "2026-11-17"),
                                                               ("s3", "2026-11-19"))]
    signals += [failure(s, d, then="pnpm run build") for s, d in (("s4", "2026-11-16"), ("s5", "2026-11-17"),
                                                                ("s6", "2026-11-18"), ("s6", "2026-11-18"))]
    signals += [correction("The config lives in settings.toml", "s7", "2026-11-20")]  # a one-off
    vectors = [unit(1, 0, 0)] * 3 + [unit(0, 1, 0)] * 4 + [unit(0, 0, 1)]
    uv, fails = find_friction(signals, vectors, min_sessions=2)
    assert (uv.kind, uv.sessions, uv.severity, uv.target, uv.section) == (
        "correction", ["s1", "s2", "s3"], 9.0, "MEMORY.md", "Lessons")
    assert uv.draft == "Use uv not pip (the user had to say this in 3 sessions)." and uv.title == "Lesson: use uv not pip"
    assert [e.session_id for e in uv.evidence] == ["s1", "s2", "s3"] and uv.message_ids == ["s1-m1", "s2-m1", "s3-m1"]
    assert (fails.kind, fails.sessions, fails.occurrences, fails.severity) == ("command-failure", ["s4", "s5", "s6"], 4, 6.0)
    assert (fails.target, fails.target_dir) == ("CLAUDE.md", "/work/app")
    assert "use `pnpm run build`, which worked right after it" in fails.draft
    assert fails.days == ["2026-11-16", "2026-11-17", "2026-11-18"]


def test_failures_in_several_projects_go_to_memory_md():
    signals = [failure("s1", "2026-11-15", cwd="/a"), failure("s2", "2026-11-16", cwd="/b")]
    [found] = find_friction(signals, [unit(1, 0)] * 2)
    assert (found.target, found.target_dir) == ("MEMORY.md", "")


def test_too_little_data_says_why():
    assert "only 3 observations" in too_little_data(3, 3, 10, 2)
    assert "only 1 session" in too_little_data(12, 1, 10, 2)
    assert too_little_data(12, 4, 10, 2) is None


def _fix(status: str, decided: str | None = None) -> Proposal:
    return Proposal(id="f-20261110-001", section="Lessons", text="Use uv not pip", created="2026-11-10",
                    status=status, decided=decided, pattern="Use uv not pip", friction_kind="correction")


def test_the_behaviour_loop_tells_new_pending_fixed_and_recurring_apart():
    signals = [correction("Use uv not pip", "s1", "2026-11-15"), correction("Use uv not pip", "s2", "2026-11-18")]
    [found] = find_friction(signals, [unit(1, 0)] * 2)
    close, far = unit(1, 0.1), unit(0, 1)
    assert match_fix(found, unit(1, 0), [(_fix("approved", "2026-11-12"), far)]).status == "new"
    assert match_fix(found, unit(1, 0), [(_fix("pending"), close)]).status == "pending"
    assert match_fix(found, unit(1, 0), [(_fix("rejected", "2026-11-11"), close)]).status == "rejected"
    assert match_fix(found, unit(1, 0), [(_fix("approved", "2026-11-18"), close)]).status == "fixed"
    recurring = match_fix(found, unit(1, 0), [(_fix("approved", "2026-11-16"), close)])
    assert (recurring.status, recurring.fix_id) == ("recurring", "f-20261110-001")
    stronger = escalate(found, _fix("approved", "2026-11-16"))
    assert stronger.sessions == ["s2"] and stronger.section == "Hard Rules" and stronger.recurring_of == "f-20261110-001"
    assert stronger.draft.endswith("still recurring after the fix approved on 2026-11-16.")


def test_a_command_failing_the_same_way_three_times_in_one_session_is_a_loop():
    loop = [failure("s1", "2026-11-15")] * 3
    [found] = find_friction(loop, [unit(1, 0)] * 3)
    assert (found.sessions, found.occurrences) == (["s1"], 3) and "3 times in 1 session)" in found.draft
    assert find_friction([failure("s1", "2026-11-15")] * 2, [unit(1, 0)] * 2) == []


def test_a_pattern_found_twice_is_one_finding_its_most_severe_first():
    def finding(kind: str, pattern: str, severity: float) -> Finding:
        return Finding(kind=kind, pattern=pattern, sessions=["s1", "s2"], occurrences=2, impact=1.0,
                       severity=severity, evidence=[])

    found = ranked([finding("contradiction", "use pip", 5), finding("correction", "use uv", 9),
                    finding("contradiction", "use pip", 7), finding("correction", "use pip", 6)])
    assert [(f.kind, f.pattern, f.severity) for f in found] == [
        ("correction", "use uv", 9), ("contradiction", "use pip", 7), ("correction", "use pip", 6)]
