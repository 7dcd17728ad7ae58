"""Repeated instructions: the user asking for the same way of working again and again."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.friction.instructions import find_instructions, instruction_keys
from memory_pipeline.stages.friction.said import window_statements
from memory_pipeline_tests.support.friction_windows import window


@pytest.mark.parametrize("text, keys", [
    ("alright, read @src/main.ts @src/tui/renderer.ts in full.", ["read … in full"]),
    ("you haven't read src/tui/renderer.ts in full i suppose", ["read … in full"]),
    ("if not, commit first", ["commit … first"]),
    ("run the tests first, then check the diff carefully", ["run … first", "check … carefully"]),
    ("read the changelog", []),
    ("create a full implementation plan", []),
])
def test_an_instruction_is_a_verb_with_its_manner(text, keys):
    assert instruction_keys(text) == keys


def test_an_instruction_asked_three_times_in_one_session_is_found_and_a_one_off_ignored():
    session = window("s1", "2026-11-16", [
        "read src/main.ts in full. Then plan the refactor", "you need to read the session class in full",
        "commit first", "how about you read renderer.ts in full and start over"])
    other = window("s2", "2026-11-17", ["run the linter, nothing else"])
    [found] = find_instructions(window_statements([session, other]), min_sessions=2)
    assert (found.kind, found.pattern, found.sessions) == ("instruction", "read … in full", ["s1"])
    assert found.occurrences == 3
    assert found.message_ids == ["s1-m1", "s1-m2", "s1-m4"] and found.title == "Lesson: read files in full"
    assert found.draft.startswith("Read files in full without being asked: the user asked for this 3 times in 1 ")
    assert found.severity == 2 * 2.5


def test_an_instruction_in_two_sessions_recurs():
    sessions = [window("s1", "2026-11-16", ["run the tests first"]), window("s2", "2026-11-18", ["Run pytest first!"])]
    [found] = find_instructions(window_statements(sessions), min_sessions=2)
    assert found.sessions == ["s1", "s2"] and found.pattern == "run … first"


def test_the_fix_names_what_the_user_asked_about_and_a_pronoun_alone_is_no_fix():
    named = [window(f"s{n}", f"2026-11-1{n}", [text]) for n, text in enumerate(
        ["Run the tests before committing.", "Again: run the tests before committing.", "run it before committing"])]
    [found] = find_instructions(window_statements(named), min_sessions=2)
    assert found.title == "Lesson: run the tests before committing"
    assert found.draft.startswith("Run the tests before committing without being asked")
    only_it = [window(f"s{n}", f"2026-11-1{n}", ["run it before committing"]) for n in range(3)]
    assert find_instructions(window_statements(only_it), min_sessions=2) == []
