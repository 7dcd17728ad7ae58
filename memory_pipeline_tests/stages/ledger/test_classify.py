"""The ledger's types, priorities and tags of a fact."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.ledger.classify import classify_fact


def test_an_access_token_is_security_and_a_themes_colour_token_is_not():
    assert "security" in classify_fact("Rotate the GitHub API token before the release branch is cut.", "high").tags
    answer = classify_fact('User answered "We would need a separate `linkUrl` token to style links differently.": '
                           '"In old pi the link url was 666666"', "high")
    assert "security" not in answer.tags and answer.priority != "P0"


def test_a_decision_the_observer_marked_is_no_open_commitment():
    decided = classify_fact('User decided: "We need to use `findModel` from model-config.ts, so custom models are '
                            'found too"', "high")
    assert decided.type == "decision" and decided.status is None
    owed = classify_fact('User stated: "We need to migrate the billing service by Friday"', "high")
    assert owed.type == "commitment" and owed.status == "open"


def test_please_typed_in_a_hurry_names_nothing():
    rule = classify_fact('User corrected the agent: "Plase don\'t rewrite the Changelog, make surgical edits"', "high")
    assert rule.entity == "changelog"


def test_an_account_names_an_identifier_and_a_session_id_in_prose_is_none():
    assert "account" in classify_fact("The billing account is acme-prod-7.", "high").tags
    assert "account" in classify_fact("Deploys go to org 4411 on the staging cluster.", "high").tags
    cause = "Root Cause: Claude Code writes session data to files with other names than the session ID inside the file."
    assert "account" not in classify_fact(cause, "high").tags


def test_a_way_of_working_the_user_corrected_the_agent_into_is_a_preference():
    said = 'User corrected the agent: "Please make sure all files in the working directory are updated."'
    assert classify_fact(said, "high").type == "preference"  # it does not age out as a fact does
    assert classify_fact('User corrected the agent: "The port is 8080 on staging."', "high").type == "fact"


def test_what_the_code_does_instead_of_what_it_should_is_no_decision():
    assert classify_fact("The `export` function has a default of 'md' instead of 'all'.", "high").type == "fact"
    assert classify_fact("The script is using the file name instead of the session ID inside it.", "high").type == "fact"
    assert classify_fact("We use Redis instead of Memcached for the cache.", "high").type == "decision"


def test_a_label_or_an_adverb_names_no_entity():
    assert classify_fact("Finding: The SQLite store is not required.", "high").entity == "sqlite"
    assert classify_fact("Root Cause: Claude Code writes to a file named unlike its session.", "high").entity == "claude"
    assert classify_fact("Often I have several Claude Code sessions open in one folder.", "high").entity == "claude"


def test_a_want_an_answer_or_a_listing_is_no_p0_rule_and_a_promise_told_as_a_reason_is_none():
    for said in ("I'm thinking about bringing a water filter instead of purification tablets, since I'll be trekking "
                 "for 10 days and don't want to carry a lot of tablets.",
                 "No we never started over",
                 "Volunteer application process: Online application with a brief questionnaire; must be 16+ years old"):
        kind = classify_fact(f'User stated: "{said}"', "high")
        assert kind.type not in ("constraint", "commitment") and kind.priority != "P0", said
    rule = classify_fact('User stated: "You must write in Australian English."', "high")
    assert rule.type == "constraint" and rule.priority == "P0"
    promise = classify_fact('User stated: "I\'ll follow up with the landlord about the lease on Monday."', "medium")
    assert promise.type == "commitment"


def test_goodwill_is_no_open_commitment_whoever_says_it_and_a_promise_with_a_when_still_is():
    for said in ("I'll keep pushing forward.", "Jon will keep you posted on how it goes.",
                 "John will definitely check them out.", "I'll take your advice, thanks!", "Andrew will talk to you soon, have fun!",
                 "We'll keep going and never give up.", "Calvin will stay focused and keep going."):
        assert classify_fact(said, "medium").type != "commitment", said
    assert classify_fact("I'll let you know the load-test numbers by Friday.", "medium").type == "commitment"
    # a practice is never done: no open commitment
    assert classify_fact("I'll need to regularly review and adjust my pricing strategy.", "medium").type != "commitment"
    assert classify_fact("We'll rotate the staging keys every month.", "medium").type != "commitment"
    assert classify_fact("We'll migrate the billing service to Postgres 17 next sprint.", "medium").type == "commitment"


def test_a_passing_thought_of_the_user_is_a_p3_fact_that_ages_out_first():
    """What the user was weighing up or hoping that day is no standing fact: it is what MEMORY.md gets no
    proposal for (reflector_rules.PASSING_THOUGHT), and in the ledger it sorts last and expires first."""
    for text in ('User stated: "I was thinking of going to the party on a weekday instead of a weekend."',
                 'User stated: "I\'ve been meaning to move the nightly export to the worker queue."',
                 'User stated: "I use it to play music, set reminders, and make hands-free calls."'):  # named before
        assert (classify_fact(text, "high").type, classify_fact(text, "high").priority) == ("fact", "P3"), text
    for text in ('User stated: "I\'m leaning towards Todoist since I already use it for task management."',
                 'User stated: "I\'m really looking forward to backing up the photos now that I\'ve decided on a plan."'):
        assert classify_fact(text, "high").priority == "P3", text  # weighed up or hoped for, whatever its type
    hoped = classify_fact('User stated: "I\'m really looking forward to backing up the photos now that I\'ve decided."',
                          "high")
    assert hoped.type == "fact"  # no decision: a decision never ages out of the pack
    picked = classify_fact('User stated: "I like the Classic and Simple style."', "high")  # among the agent's offers
    assert (picked.type, picked.priority) == ("fact", "P3")  # a reaction to an offer states no taste (OFFERED)
    assert classify_fact('User stated: "I like the `retry_client` approach for every service."', "high").priority != "P3"
    assert classify_fact('User stated: "I usually deploy from the release branch on Fridays."', "high").priority == "P1"
    assert classify_fact('User stated: "I think we\'ll go with Postgres for the queue."', "high").type == "decision"


def test_what_the_agent_told_in_a_chat_is_p3_and_in_work_on_software_as_before():
    """In a conversation about the user's life, the agent's words are what it told, not what is true of the user:
    a chat history's pack listed "the US Mint switched from copper to zinc-coated steel cents" as a P1 decision."""
    from datetime import UTC, datetime

    from memory_pipeline.models import Fact, Observation, Segment
    from memory_pipeline.stages.ledger.classify import by_provenance, is_chat_observation

    told = classify_fact("Decision: During World War II, the US Mint switched from copper to zinc-coated steel cents.",
                         "medium")
    assert told.type == "decision" and told.priority == "P1"
    assert (by_provenance(told, ["assistant"], chat=True).type, by_provenance(told, ["assistant"], chat=True).priority
            ) == ("fact", "P3")  # a fact ages out of the pack; a decision never would
    assert by_provenance(told, ["assistant"]) == told  # work on software: the agent's decision stands
    assert by_provenance(told, ["user"], chat=True) == told  # the user's own words
    promise = classify_fact("I'll send you the packing list tomorrow.", "medium")
    assert by_provenance(promise, ["assistant"], chat=True) == promise  # an open commitment keeps its place

    def observation(text: str, **files) -> Observation:
        return Observation(id="o", dedupe_key="k", session_id="s", trigger="shutdown", date="2026-04-04",
                           captured_at=datetime(2026, 4, 4, tzinfo=UTC), **files,
                           segments=[Segment(title="Coins", narrative="The user asked about old coins.",
                                             facts=[Fact(id="f", text=text, priority="medium")])])
    assert is_chat_observation(observation("The US Mint switched to steel cents in 1943."))
    assert not is_chat_observation(observation("The retry loop lives in `export_rows`."))
    assert not is_chat_observation(observation("The US Mint switched to steel cents.", files_read=["notes/coins.txt"]))


@pytest.mark.parametrize("text", ["User stated: Our tests run on Jest.", "User stated: This project uses Poetry.",
                                  "User stated: Deploys go through Jenkins.", "User stated: CI runs on GitHub Actions."])
def test_what_the_project_uses_as_the_user_states_it_is_a_decision_that_holds_until_it_changes(text):
    assert classify_fact(text, "medium").type == "decision"  # a setup does not age out of the pack after 90 days


@pytest.mark.parametrize("text", ["User stated: I was using Docker when it crashed.",  # told, not a setup
                                  "Fact: The repo uses Jest.",  # not the user's statement
                                  "User stated: npm install fails with EACCES."])  # a mention, no use
def test_a_tool_told_of_or_mentioned_or_not_stated_by_the_user_stays_a_fact(text):
    assert classify_fact(text, "medium").type == "fact"
