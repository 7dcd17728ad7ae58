"""Friction signals: corrections by the user, command failures with what worked next, failure facts."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memory_pipeline.models import Fact, Message, Segment, ToolCall, ToolResult, Transcript
from memory_pipeline.stages.friction.signals import (
    command_of,
    correction_rule,
    error_line,
    error_signature,
    fact_signals,
    session_signals,
)
from memory_pipeline_tests.support.review_fixtures import observation


@pytest.mark.parametrize("text, rule", [
    ("no, use uv not pip", "Use uv not pip"),
    ("I told you to use uv instead of pip!", "Use uv instead of pip!"),
    ("don't run the migrations on the shared database", "Don't run the migrations on the shared database"),
    ("Nope. The tests live in memory_pipeline_tests/, not tests/", "The tests live in memory_pipeline_tests/, not tests/"),
    ("Stop using print for logging, use the logger", "Stop using print for logging, use the logger"),
    ("No, that's horrible. Revert it.", "That's horrible. Revert it."),
])
def test_a_correction_becomes_the_rule_it_states(text, rule):
    assert correction_rule(text) == rule


@pytest.mark.parametrize("text", [
    "Please add a unit test for the parser", "No worries, thanks", "<command-name>/clear</command-name>",
    "no", "Can you explain how the sensor works?",
])
def test_requests_thanks_and_harness_text_are_not_corrections(text):
    assert correction_rule(text) is None


def test_command_of_reads_json_and_rendered_arguments():
    assert command_of("Bash", '{"command": "cd /repo && npm run build", "description": "build"}') == "npm run build"
    assert command_of("exec_command", '{"cmd": ["bash", "-lc", "pytest -x"]}') == "pytest -x"
    assert command_of("Bash", "command=make test, timeout=60") == "make test"
    assert command_of("Read", '{"file_path": "/a"}') == "Read"


def test_error_line_and_signature_keep_the_way_it_failed():
    output = "Exit code 1\nnpm ERR! code 1\nError: Cannot find module 'vite' from /home/u/app/x.js:12"
    assert error_line(output) == "Error: Cannot find module 'vite' from /home/u/app/x.js:12"
    assert error_line("Exit code 2\n") == "failed with no output"
    assert error_signature("Error: Cannot find module 'vite' from /home/u/app/x.js:12") == \
        error_signature("Error: Cannot find module 'vite' from /tmp/other/y.js:99")


def _at(minute: int) -> datetime:
    return datetime(2026, 11, 20, 9, minute, tzinfo=timezone.utc)


def test_session_signals_cite_their_messages_and_what_worked_after_a_failure():
    messages = [
        Message(id="u1", role="user", timestamp=_at(0), text="Build the app please"),
        Message(id="a1", role="assistant", timestamp=_at(1), tool_calls=[ToolCall(id="c1", name="Bash",
                input='{"command": "npm run build"}')]),
        Message(id="t1", role="tool", timestamp=_at(2), tool_results=[ToolResult(call_id="c1", is_error=True,
                text="Error: Cannot find module 'vite'")]),
        Message(id="a3", role="assistant", timestamp=_at(3), tool_calls=[ToolCall(id="c3", name="Read",
                input='{"file_path": "package.json"}')]),
        Message(id="t4", role="tool", timestamp=_at(3), tool_results=[ToolResult(call_id="c3", text="{}")]),
        Message(id="a2", role="assistant", timestamp=_at(3), tool_calls=[ToolCall(id="c2", name="Bash",
                input='{"command": "pnpm run build"}')]),
        Message(id="t2", role="tool", timestamp=_at(4), tool_results=[ToolResult(call_id="c2", text="built")]),
        Message(id="u2", role="user", timestamp=_at(5), text="no, use uv not pip"),
        Message(id="t3", role="tool", timestamp=_at(6), text="no, use pip not uv"),  # tool output: data
    ]
    transcript = Transcript(format="claude-code", session_id="s1", cwd="/repo", messages=messages)
    obs = observation("2026-11-20", "s1", [])
    failure, correction = sorted(session_signals(transcript, obs), key=lambda s: s.kind)
    assert (correction.kind, correction.text, correction.message_ids) == ("correction", "Use uv not pip", ("u2",))
    assert failure.kind == "command-failure" and failure.message_ids == ("a1", "t1")
    assert failure.command == "npm run" and failure.then == "pnpm run build" and failure.cwd == "/repo"
    assert (failure.observation_id, failure.day, failure.time) == (obs.id, "2026-11-20", "09:02")


def test_failure_facts_skip_messages_already_counted():
    facts = [Fact(priority="high", text="The deploy failed because the token expired", source_message_ids=["m1"]),
             Fact(priority="high", text="npm run build failed again", source_message_ids=["m2"]),
             Fact(priority="medium", text="Added a retry to the client", source_message_ids=["m3"])]
    obs = observation("2026-11-20", "s1", [Segment(facts=facts)])
    found = fact_signals(obs, {("s1", "m2")})
    assert [(s.kind, s.text, s.message_ids) for s in found] == [
        ("failure", "The deploy failed because the token expired", ("m1",))]


def test_only_the_same_job_done_another_way_counts_as_what_worked():
    from memory_pipeline.stages.friction.signals import is_alternative

    assert is_alternative("npm run build", "pnpm run build")
    assert is_alternative("pip install requests", "uv pip install requests")
    assert not is_alternative("npm run check 2>&1 | head -40", "git checkout -- . && rm -rf node_modules")
    assert not is_alternative("npm run check", "npm run check")
