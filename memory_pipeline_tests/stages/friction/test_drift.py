"""Configuration drift: one setting, version or tool choice stated with other values over time."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.friction.drift import find_drift, settings_in
from memory_pipeline.stages.friction.said import window_statements
from memory_pipeline_tests.support.friction_windows import user_fact, window


@pytest.mark.parametrize("text, settings", [
    ("use Node 18 for this", [("node version", "18")]),
    ("Upgrade from node 18 to node 20", [("node version", "20")]),
    ("use node 20, not node 18", [("node version", "20")]),
    ("pin pydantic==2.7 please", [("pydantic version", "2.7")]),
    ("set timeout to 30", [("timeout", "30")]),
    ("MAX_WORKERS=4 is enough", [("max_workers", "4")]),
    ("use pnpm, not npm", [("JavaScript package manager", "pnpm")]),
    ("don't use npm here", []),
    ("read 100 lines at a time", []),
    ("check issue 16 and step 2", []),
])
def test_a_sentence_states_settings(text, settings):
    assert settings_in(text) == settings


def planted():
    """Node 18 → 20 → 18 over three sessions, a timeout flipped inside one session, and one-offs:
    a version stated once, and a package manager stated the same way twice."""
    return [
        window("s1", "2026-11-15", ["Use Node 18 for the web app", "Install the deps with pnpm please"]),
        window("s2", "2026-11-17", ["No, node 20. The build needs it", "Python 3.12 is what we run"]),
        window("s3", "2026-11-19", ["set timeout to 30", "Actually set timeout to 60", "Hmm, set timeout to 30 again",
                                    "go back to node 18, 20 broke the CI"]),
        window("s4", "2026-11-20", ["we install with pnpm here"]),
    ]


def test_drift_across_sessions_and_back_and_forth_in_one_is_found_with_its_evidence():
    node, timeout = find_drift(window_statements(planted()), min_sessions=2)
    assert (node.kind, node.pattern, node.sessions) == ("drift", "node version: 18 / 20", ["s1", "s2", "s3"])
    assert [(e.session_id, e.message_ids, e.day) for e in node.evidence] == [
        ("s1", ["s1-m1"], "2026-11-15"), ("s2", ["s2-m1"], "2026-11-17"), ("s3", ["s3-m4"], "2026-11-19")]
    assert "18 (2026-11-15) → 20 (2026-11-17) → 18 (2026-11-19)" in node.draft and "latest: 18" in node.draft
    assert (timeout.pattern, timeout.sessions, timeout.occurrences) == ("timeout: 30 / 60", ["s3"], 3)
    assert node.severity == 3 * 2.0 and timeout.severity == 2 * 2.0  # changes × impact


def test_one_offs_and_a_setting_stated_the_same_way_are_ignored():
    found = find_drift(window_statements(planted()), min_sessions=2)
    assert not any(f.pattern.startswith(("python", "JavaScript")) for f in found)
    one_change_in_one_session = [window("s1", "2026-11-15", ["use node 18", "no, node 20"])]
    assert find_drift(window_statements(one_change_in_one_session), min_sessions=2) == []


def test_observer_facts_speak_for_a_window_whose_transcript_is_gone():
    first, _ = window("s1", "2026-11-15", [], facts=[user_fact("User stated: use Node 18", "s1-m4")])
    second, _ = window("s2", "2026-11-16", [], facts=[user_fact("User stated: use Node 20", "s2-m2"),
                                                      user_fact("Deploy with node 22", "s2-m3")])
    [node] = find_drift(window_statements([(first, None), (second, None)]), min_sessions=2)
    assert node.message_ids == ["s1-m4", "s2-m2", "s2-m3"] and node.pattern == "node version: 18 / 20 / 22"


def test_a_setting_that_differs_between_two_projects_is_not_drift():
    from memory_pipeline.stages.friction.drift import find_drift
    from memory_pipeline.stages.friction.said import Said

    def said(text, session, project):
        return Said(text=text, session_id=session, observation_id=f"o-{session}", day="2026-11-10", time="09:00",
                    message_id=f"m-{session}", project=project)

    apart = [said("use Node 18 for the build", "s1", "shop"), said("use Node 20 for the build", "s2", "api")]
    assert find_drift(apart) == []
    together = [said("use Node 18 for the build", "s1", "shop"), said("use Node 20 for the build", "s2", "shop")]
    assert find_drift(together)
