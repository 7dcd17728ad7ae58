"""Whether a window is work on software is decided once, by the Observer's stage from the window, and the
Reflector and the ledger read that decision instead of guessing again from the observation's words.

A coding session that chose a database ran a tool but named no file or code in what was kept: read from
its words alone it was "a conversation about the user's life", and the user's decision went to the
agent's-chat rules (no proposal)."""

from __future__ import annotations

from datetime import UTC, datetime

from memory_pipeline.models import EventData, Message, SessionEvent, ToolCall, ToolResult, Transcript
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.llm import LLMClient, default_offline_provider
from memory_pipeline.stages.ledger.classify import is_chat_observation
from memory_pipeline.stages.observe.session import observe_session
from memory_pipeline.stages.offline.reflector import read_items
from memory_pipeline.stages.reflect.reflector import render_observations
from memory_pipeline.stages.review.triage import NEEDS_REVIEW, triage

DECISION = "Let's go with Postgres 17 for the orders service, because we need logical replication for the analytics feed."


def at(minute: int) -> datetime:
    return datetime(2026, 10, 5, 9, minute, tzinfo=UTC)


def session(tool: bool) -> list[Message]:
    """The user picks a database; with `tool`, the agent looked at the repository first (one `ls`)."""
    looked = [Message(id="a1", role="assistant", timestamp=at(1), text="Let me look at what the team runs.",
                      tool_calls=[ToolCall(id="c1", name="Bash", input="ls")]),
              Message(id="t1", role="tool", timestamp=at(1), tool_results=[ToolResult(call_id="c1", text="README\n")])]
    return [Message(id="u1", role="user", timestamp=at(0),
                    text="We need to pick the database for the new orders service. Postgres or MySQL?"),
            *(looked if tool else []),
            Message(id="a2", role="assistant", timestamp=at(2),
                    text="Postgres has logical replication; MySQL is what the billing team runs."),
            Message(id="u2", role="user", timestamp=at(3), text=DECISION),
            Message(id="a3", role="assistant", timestamp=at(4), text="Understood: Postgres 17 it is.")]


def observed(tool: bool, messages: list[Message] | None = None):
    event = SessionEvent(name="memory/session.ended", data=EventData(
        session_id="s", dedupe_key=f"s:{tool}", trigger="shutdown", message_count=5, schema_version=1,
        captured_at=at(5)))
    said = session(tool) if messages is None else messages
    return observe_session(Transcript(format="claude-code", session_id="s", messages=said), event,
                           llm=LLMClient(default_offline_provider(), None), prompt=load_prompt("observer"),
                           model="offline")


def test_the_decision_is_kept_and_its_window_is_work_on_software_for_every_reader():
    observation = observed(tool=True)
    texts = [f.text for f in observation.facts]
    assert f'User decided: "{DECISION}"' in texts  # "let's go with" chooses: no task request
    assert observation.about_code is True
    assert not is_chat_observation(observation)  # the ledger reads the Observer's decision
    rendered = render_observations([observation], set())
    assert ' code="yes">' in rendered.text
    items = read_items(rendered.text)
    assert items and not any(item.chat for item in items)  # and so does the Reflector
    # the words alone name no code: read from them, the same observation was a chat
    unknown = observation.model_copy(update={"about_code": None})
    assert is_chat_observation(unknown)
    assert all(item.chat for item in read_items(render_observations([unknown], set()).text))


def test_a_window_with_no_tool_and_no_code_stays_a_conversation():
    dinner = [Message(id="u1", role="user", timestamp=at(0), text="We need to pick a place for the team dinner. "
                      "Italian or Thai?"),
              Message(id="a1", role="assistant", timestamp=at(1), text="Thai has the bigger room."),
              Message(id="u2", role="user", timestamp=at(2), text="Let's go with Thai, because Sam is vegetarian.")]
    observation = observed(tool=False, messages=dinner)
    assert observation.about_code is False and is_chat_observation(observation)
    assert ' code="no">' in render_observations([observation], set()).text


def test_a_window_where_the_user_names_a_part_of_the_setup_is_work_on_software():
    """No tool called, no code written: the user picks the orders service's database (`SETUP_TERM`)."""
    observation = observed(tool=False)
    assert observation.about_code is True and not is_chat_observation(observation)
    assert f'User decided: "{DECISION}"' in [f.text for f in observation.facts]
    for said in ("FYI Redis is on port 6380 now.", "We renamed the repo to orders-api.",
                 "Deploys go through Argo CD now.", "The staging URL is staging2.example.com.",
                 "We use asdf for tool versions.", "Local containers run on Podman now.",
                 "The frontend is hosted on Vercel.", "We moved the models to SQLAlchemy 2.", "Pyright is the type checker."):
        assert observed(tool=False, messages=[Message(id="u1", role="user", timestamp=at(0), text=said)]).about_code
    for said in ("I've been reading a lot of poetry lately.", "Dr. Jenkins deployed the new clinic in 2019.",
                 "I use API CO2 booster for my aquarium plants.", "I'm rereading Kafka and the Prometheus myth.",
                 "I only said it in jest.", "My cousin is a playwright in Chicago.",
                 "I edited the photo with Prisma.", "I sent it by express mail.", "I knitted it with merino yarn.",
                 "Mise en place makes cooking calmer.", "I upgraded to an RTX 4090 for gaming."):
        assert not observed(tool=False, messages=[Message(id="u1", role="user", timestamp=at(0), text=said)]).about_code


def test_a_decision_that_says_lets_go_with_is_no_narration():
    verdict = triage(DECISION, quotes_transcript=True)
    assert verdict.verdict == NEEDS_REVIEW and verdict.reason.startswith("a decision the user made")
    assert triage("Let's check the logs of the orders service first.", quotes_transcript=True).reason == (
        "narration of that session's work")
    told = triage("I found it hard to understand the culture when I first moved to Japan.", quotes_transcript=True)
    assert not told.reason.startswith("a decision")  # a move told, no choice made
    assert triage("The bug in last week's export was that the cache key ignored the tenant id.",
                  quotes_transcript=True).reason.startswith("a cause the user gave")
    assert triage("The flaky cart test depended on object key order; sorting the keys fixed it.").reason.startswith(
        "a cause found in that work")


def test_the_tools_that_say_software_are_the_ledgers_tools_less_everyday_words():
    """One list of tools by job (`tool_jobs`): the ledger reads a switch between any two of one job; a user naming
    one says work on software unless the name is an everyday word too."""
    from memory_pipeline.stages.offline.observer_rules import SETUP_TERM
    from memory_pipeline.stages.tool_jobs import EVERYDAY, JOBS, setup_tools

    named = {tool for tools in JOBS.values() for tool in tools}
    assert EVERYDAY <= named and set(setup_tools()) == named - EVERYDAY
    assert all(SETUP_TERM.search(f"We use {tool} here.") for tool in setup_tools())
    assert not any(SETUP_TERM.search(f"We love {word} here.") for word in EVERYDAY - {"jest"})

