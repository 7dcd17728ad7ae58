"""Which facts state a change (stages/ledger/change.py): a cue told as background, "actually" before an
event, and the assistant's "instead of" advice supersede nothing; the corrections of a user still do."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memory_pipeline.stages.ledger.change import advice_only, states_change
from memory_pipeline.stages.ledger.classify import classify_fact


@pytest.mark.parametrize("text", [
    "We moved to Postgres 17 last week.",
    "Update: we upgraded the orders service from Postgres 15 to Postgres 16 last night; 15 is gone.",
    "Actually, it's port 6380, not 6379.",
    "Actually the service runs on 17 now.",
    "Caroline moved from her home country four years ago.",  # a move told as what happened
    "Same as before, we now use pnpm.",  # "as" behind a comma opens no clause around the cue
    "We no longer deploy on Fridays.",
    "We moved to Postgres 17 last week, though we might roll back.",  # the hedge comes after the change
    "We were considering Redis, but we switched to Valkey last month.",  # weighed, then made
])
def test_a_change_told_as_what_the_fact_says_is_a_change(text):
    assert states_change(text)


@pytest.mark.parametrize("text", [
    # background: the clause of time or reason the cue sits in
    "They've been there through everything, Caroline has known these friends for 4 years, since Caroline moved "
    "from Caroline's home country.",
    "After we migrated to Postgres 17, the queries got faster.",
    "The build broke because we switched to pnpm yesterday.",
    # "actually" before an event, not a state
    "Actually, Melanie just took her fam camping in the mountains last week - it was a really nice time!",
    "Did we move to Postgres 17?",  # a question
    # still weighed, not made
    "I'm considering switching to pnpm instead of npm.",
    "Maybe we should move the orders service to Postgres 17 next quarter.",
    "I'm actually thinking of visiting the Tsukiji Outer Market instead of the Toyosu Market.",
])
def test_a_change_told_as_background_or_an_event_is_no_change(text):
    assert not states_change(text)


def test_instead_of_and_the_imperative_correct_from_the_user_and_advise_from_the_assistant():
    advice = "Opt for natural sweeteners like dates or maple syrup instead of refined sugar."
    assert states_change(advice) and advice_only(advice, ("assistant",))
    assert not advice_only(advice, ("user",)) and not advice_only(advice, ("user", "assistant"))
    assert not advice_only(advice, ())  # nobody known: as before, a change
    assert not advice_only("We moved to Postgres 17 instead of 16.", ("assistant",))  # a move besides
    imperative = "Metal or bamboo straws: Switch to metal or bamboo straws instead of plastic ones."
    assert advice_only(imperative, ("assistant",)) and not advice_only(imperative, ("user",))
    report = "Switched to BlockingConnectionPool(max_connections=10, timeout=5); all 5 tests pass."
    assert states_change(report) and not advice_only(report, ("assistant",))  # a change the agent made


def _derived(said: list[tuple[str, tuple[str, ...]]], chat: bool = False):
    from memory_pipeline.resources.embedding.embedder import get_embedder
    from memory_pipeline.stages.ledger.derive import FactInput, derive_events
    from memory_pipeline.stages.ledger.state import LedgerState
    from memory_pipeline.stages.vectors import cosine

    embed = get_embedder().encode

    def similarity(text, others):
        first, *rest = embed([text, *others])
        return [max(0.0, cosine(first, other)) for other in rest]

    facts = [FactInput(fact_id=f"f{n}", text=text, observer_priority="high", day=f"2026-11-2{n}",
                       ts=datetime(2026, 11, 20 + n, 9, tzinfo=timezone.utc), source="memory/x.md", roles=roles,
                       chat=chat)
             for n, (text, roles) in enumerate(said)]
    return derive_events(facts, [classify_fact(f.text, "high") for f in facts], LedgerState.of([]), similarity, {})


def test_the_assistants_advice_supersedes_nothing_a_users_instead_of_does():
    old, new = "The Checkout service uses Yarn for installs.", "The Checkout service installs with pnpm instead of Yarn."
    advised = _derived([(old, ("user",)), (new, ("assistant",))])
    assert advised[1].supersedes is None
    corrected = _derived([(old, ("user",)), (new, ("user",))])
    assert corrected[1].supersedes == corrected[0].id


@pytest.mark.parametrize("old, new", [
    ("Our tests run on Jest.", "Tests run on Vitest these days, not Jest."),  # filed under "jest", then "tests"
    ("We use npm for this repo.", "We dropped npm for pnpm."),  # no entity either: the value it replaces
    ("The repo is called orders-service.", "We renamed the repo to orders-api."),
    ("The API lives at /v1.", "The API lives at /v2 now."),
    ("We deploy on Fridays.", "We stopped deploying on Fridays; we deploy on Tuesdays."),
    ("We use npm for this repo.", "We use pnpm now."),  # another tool of the job, no word shared but "use"
    ("Our logs go to Datadog.", "We use Grafana now."),  # cosine 0.16
])
def test_an_update_of_the_work_supersedes_what_it_updates_whatever_its_entity(old, new):
    events = _derived([(old, ("user",)), (new, ("user",))])
    assert events[1].supersedes == events[0].id


def test_an_update_supersedes_the_closest_fact_it_speaks_of_and_nothing_unrelated():
    events = _derived([("The repo is called orders-service.", ("user",)), ("The API lives at /v1.", ("user",)),
                       ("CI runs on GitHub Actions.", ("user",)), ("We renamed the repo to orders-api.", ("user",))])
    assert events[3].supersedes == events[0].id  # not the API's path, which shares "api" with it
    unrelated = _derived([("CI runs on GitHub Actions.", ("user",)), ("Deploys go through Argo CD now.", ("user",))])
    assert unrelated[1].supersedes is None


def test_an_update_told_in_a_conversation_about_life_supersedes_by_the_ledgers_older_rules_only():
    said = [("Our tests run on Jest.", ("user",)), ("Tests run on Vitest these days, not Jest.", ("user",))]
    assert _derived(said, chat=True)[1].supersedes is None


def test_an_update_of_what_is_said_of_the_same_thing_supersedes_it_another_aspect_is_kept():
    events = _derived([("Deploys go through Jenkins.", ("user",)), ("Deploys go through Argo CD now.", ("user",))])
    assert events[1].supersedes == events[0].id  # the same thing ("deploys"), the same "go through"
    events = _derived([("Postgres 16 is the version we run.", ("user",)), ("Postgres runs in Docker now.", ("user",))])
    assert events[1].supersedes is None  # where it runs is no version
    events = _derived([("Redis is on the old box in the basement.", ("user",)), ("Redis is on port 6380 now.", ("user",))])
    assert events[1].supersedes is None  # "is on" says too many things of it: a host is no port (cosine 0.62)


def test_an_update_naming_another_tool_replaces_the_fact_of_its_use_not_one_that_mentions_the_tool():
    events = _derived([("We use npm for this repo.", ("user",)), ("npm install fails with EACCES on the CI runner.",
                                                                  ("user",)), ("We use pnpm now.", ("user",))])
    assert events[2].supersedes == events[0].id
    events = _derived([("npm install fails with EACCES on the CI runner.", ("user",)), ("We use pytest.", ("user",)),
                       ("We use pnpm now.", ("user",))])
    assert events[2].supersedes is None  # pytest is nearer (0.57) but runs tests; npm is only mentioned
