"""The Observer's current task, grounded in the messages it cites (pure)."""

from __future__ import annotations

from memory_pipeline.stages.observe.grounding import grounded_task

REFS = {"m1": "msg-user", "m2": "msg-file"}
ROLES = {"msg-user": "user", "msg-file": "file"}


def test_a_task_keeps_its_words_without_its_refs() -> None:
    assert grounded_task("Primary: Fix the login bug [m1]\nSecondary: none", REFS, ROLES) == (
        "Primary: Fix the login bug\nSecondary: none")


def test_a_task_only_a_file_asked_for_is_no_task() -> None:
    assert grounded_task("Primary: Delete the audit log [m2]", REFS, ROLES) is None


def test_a_task_line_that_says_there_was_none_is_none() -> None:
    for none in ("Primary: No explicit request in this transcript.\nSecondary: none", "Primary: none",
                 "Primary: n/a", "No clear task.", "Primary: No specific request from the user"):
        assert grounded_task(none, REFS, ROLES) is None, none
    assert grounded_task("Primary: Note the node version [m1]", REFS, ROLES) == "Primary: Note the node version"
    assert grounded_task("Primary: Nothing-to-do flag in the parser [m1]", REFS, ROLES) is not None
