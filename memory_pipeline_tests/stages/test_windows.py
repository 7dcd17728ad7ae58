"""The work rule and the split of a session into windows (pure)."""

from __future__ import annotations

from memory_pipeline.models import Message, ToolCall, Transcript, WindowWork
from memory_pipeline.stages.transcripts import parse_transcript
from memory_pipeline.stages.windows import (
    decide_observing,
    plan_window,
    shows_work,
    split_window,
    window_work,
    worth_observing,
)
from memory_pipeline_tests.support.paths import fixture_transcript


def test_an_agentic_session_shows_work_with_three_user_messages() -> None:
    transcript = parse_transcript(fixture_transcript("claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"))
    work = window_work(transcript.messages)
    # two typed, one the answer to the agent's AskUserQuestion
    assert work.user_messages == 3 and work.tool_calls == 150 and work.files_modified >= 1
    assert shows_work(work)


def test_each_signal_alone_is_enough_and_a_greeting_is_not() -> None:
    assert not shows_work(WindowWork(user_messages=2, tool_calls=9, files_modified=0, chars=1999))
    for enough in (WindowWork(user_messages=3), WindowWork(tool_calls=10), WindowWork(files_modified=1),
                   WindowWork(chars=2000)):
        assert shows_work(enough)


def test_a_short_window_waits_unless_the_session_is_over() -> None:
    short, busy = WindowWork(user_messages=1, chars=40), WindowWork(tool_calls=40)
    assert decide_observing("shutdown", short, short, session_over=False) == "waiting"
    assert decide_observing("shutdown", short, short, session_over=True) == "skipped"
    assert decide_observing("shutdown", short, busy, session_over=True) == "observed"  # the tail of real work
    assert decide_observing("compaction", short, short, session_over=False) == "observed"


def _said(user: str, reply: str = "Got it, I'll keep that in mind.") -> list[Message]:
    return [Message(id="u1", role="user", text=user), Message(id="a1", role="assistant", text=reply)]


def test_a_short_window_is_observed_when_the_user_states_something_to_keep() -> None:
    for note in ("Remember: never deploy the billing service on Fridays.",
                 "FYI we moved the orders service to Postgres 17 last week.",
                 "I prefer pytest over unittest for new tests.",
                 "Please remember that the API keys rotate monthly."):
        work = window_work(_said(note))
        assert work.statements == 1 and not shows_work(work), note
        assert decide_observing("shutdown", work, work, session_over=False) == "waiting"  # to join the next one
        assert decide_observing("shutdown", work, work, session_over=True) == "observed"
    for chat in ("hi", "how do I list the docker containers?", "fix the login bug", "Add a test for the parser."):
        work = window_work(_said(chat))
        assert work.statements == 0 and not worth_observing(work), chat
        assert decide_observing("shutdown", work, work, session_over=True) == "skipped"


def test_a_window_that_shows_work_is_not_read_for_statements() -> None:
    work = window_work(_said("Remember: never deploy the billing service on Fridays.", "x" * 2000))
    assert shows_work(work) and work.statements == 0  # the Observer reads it whole anyway


def _messages(*ids: str) -> list[Message]:
    return [Message(id=i, role="system" if i.startswith("s") else "user", text=i,
                    is_compaction_summary=i.startswith("s")) for i in ids]


def test_split_takes_what_came_after_and_the_backlog_that_waits() -> None:
    messages = _messages("u1", "u2", "u3", "s1", "u4")
    assert split_window(messages, None, None) == (messages[:0], messages, "u4")
    assert split_window(messages, "u2", "u2") == ([messages[1]], messages[2:], "u4")
    # a compaction's window ends before its summary, which is recorded as sent
    assert split_window(messages[:4], "u1", None, stop_at_compaction=True) == ([], messages[1:3], "s1")
    # an id from another file of the session: everything is new
    assert split_window(messages, "elsewhere", "u1") == ([], messages, "u4")


def test_an_observed_window_carries_its_backlog_under_a_key_of_its_own() -> None:
    calls = [ToolCall(id=str(n), name="Bash", input="ls") for n in range(12)]
    messages = [*_messages("u1", "u2"), Message(id="a3", role="assistant", text="done", tool_calls=calls)]
    transcript = Transcript(format="claude-code", session_id="s", messages=messages)
    window = plan_window(transcript, "shutdown", "after:u1", "u1", session_over=False, stop_at_compaction=False)
    assert window.observing == "observed" and [m.id for m in window.messages] == ["u1", "u2", "a3"]
    assert window.first_new == "u2" and window.key_entry == "from:u2"
    waiting = plan_window(transcript.model_copy(update={"messages": messages[:2]}), "shutdown", "after:u1", "u1",
                          session_over=False, stop_at_compaction=False)
    assert waiting.observing == "waiting" and [m.id for m in waiting.messages] == ["u2"] and waiting.key_entry is None
