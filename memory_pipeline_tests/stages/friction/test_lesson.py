"""A correction tied to the command it corrects: the lesson, the one signal, the one finding."""

from __future__ import annotations

import pytest

from memory_pipeline.models import Message, ToolCall, ToolResult, Transcript
from memory_pipeline.stages.friction.findings import find_friction
from memory_pipeline.stages.friction.lesson import lesson_of
from memory_pipeline.stages.friction.signals import session_signals
from memory_pipeline_tests.support.review_fixtures import observation

UV = "No, don't use pip here. This repo uses uv: run `uv sync` and `uv run pytest`. I've told you this before."


@pytest.mark.parametrize("text, failed, then, lesson", [
    (UV, "pip install httpx", "", "Use uv (`uv sync`, `uv run pytest`), not pip"),
    ("no, we use pnpm here", "npm run build", "pnpm run build", "Use pnpm (`pnpm run build`), not npm"),
    ("stop that, I told you before", "pip install x", "uv add x", "Use uv (`uv add x`), not pip"),
    ("no, don't use pip", "pip install x", "", ""),  # no alternative named, none worked after
])
def test_the_lesson_names_the_alternative_its_commands_and_the_failed_program(text, failed, then, lesson):
    assert lesson_of(text, failed, then) == lesson


def session(sid: str, correction: str, command: str = "pip install httpx") -> Transcript:
    return Transcript(format="claude-code", session_id=sid, cwd="/work/billing", messages=[
        Message(id=f"{sid}-1", role="user", text="add httpx"),
        Message(id=f"{sid}-2", role="assistant", tool_calls=[ToolCall(id="c1", name="Bash", input=f'{{"command": "{command}"}}')]),
        Message(id=f"{sid}-3", role="tool", tool_results=[ToolResult(call_id="c1", text="error: externally-managed-environment", is_error=True)]),
        Message(id=f"{sid}-4", role="user", text=correction),
        Message(id=f"{sid}-5", role="assistant", tool_calls=[ToolCall(id="c2", name="Bash", input='{"command": "uv add httpx"}')]),
        Message(id=f"{sid}-6", role="tool", tool_results=[ToolResult(call_id="c2", text="ok")])])


def test_a_correction_naming_the_failed_program_absorbs_the_failure():
    seen = observation("2026-11-16", "s1", [])
    [signal] = session_signals(session("s1", UV), seen)
    assert (signal.kind, signal.key, signal.command, signal.then) == ("correction", "corrects pip", "pip install", "uv add httpx")
    assert signal.message_ids == ("s1-2", "s1-3", "s1-4") and signal.lesson.startswith("Use uv (")
    kinds = [s.kind for s in session_signals(session("s2", "no, the config lives in settings.toml"), seen)]
    assert kinds == ["command-failure", "correction"]  # a correction about something else stays apart


def test_tied_corrections_and_the_programs_other_failures_are_one_finding():
    signals = [s for n in (1, 2) for s in session_signals(session(f"s{n}", UV), observation("2026-11-16", f"s{n}", []))]
    signals += session_signals(session("s3", "thanks"), observation("2026-11-17", "s3", []))  # pip fails, no correction
    vectors = [[1.0, 0.0] if s.kind == "correction" else [0.0, 1.0] for s in signals]
    [found] = find_friction(signals, vectors, min_sessions=2)
    assert found.sessions == ["s1", "s2", "s3"] and found.pattern == "Use uv (`uv sync`, `uv run pytest`), not pip"
    assert found.draft == ("Use uv (`uv sync`, `uv run pytest`), not pip (`pip install` failed here and the user had "
                           "to correct the agent in 2 sessions).")
