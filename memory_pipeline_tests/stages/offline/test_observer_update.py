"""A user's update of how things stand (stages/offline/observer_update.py): what it keeps of a correction, and what is
no update (the session's status, a plan, a request, what "it" refers back to)."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.offline.observer_facts import user_fact
from memory_pipeline.stages.offline.observer_update import as_update, replaced_terms


@pytest.mark.parametrize("said, kept, replaced", [
    ("The orders service is on Postgres 17 now.", "The orders service is on Postgres 17 now.", set()),
    ("We're on Postgres 17 now, not 16.", "We're on Postgres 17 now, not 16.", {"16"}),
    ("Scratch that, Redis is on port 6380, not 6379.", "Redis is on port 6380, not 6379.", {"6379"}),
    ("We dropped npm for pnpm.", "We dropped npm for pnpm.", {"npm"}),
    ("Tests run on Vitest these days, not Jest.", "Tests run on Vitest these days, not Jest.", {"jest"}),
    ("That's outdated: deploys go through Argo CD now.", "Deploys go through Argo CD now.", set()),
    ("Nope, the cache is in Redis, not memcached.", "The cache is in Redis, not memcached.", {"memcached"}),
    ("Logs go to Grafana Loki now instead of Datadog.", "Logs go to Grafana Loki now instead of Datadog.",
     {"datadog"}),
    ("We've replaced Jenkins with GitHub Actions.", "We've replaced Jenkins with GitHub Actions.", {"jenkins"}),
    # led only by the correction: it says that it holds now
    ("Wrong, the staging URL is staging2.example.com.", "The staging URL is staging2.example.com now.", set()),
    ("Correction: the orders service runs Postgres 17.", "The orders service runs Postgres 17 now.", set()),
    ("The CLI is a thin wrapper now, not a framework.", "The CLI is a thin wrapper now, not a framework.",
     {"framework"}),  # "not a framework": the article is no value
])
def test_an_update_is_kept_as_how_things_stand_with_what_it_replaces(said, kept, replaced):
    assert as_update(said) == kept
    assert replaced_terms(kept) == replaced
    assert user_fact(said, "", about_code=True) == ("high", f'User stated: "{kept}"')


@pytest.mark.parametrize("said", [
    "The orders service runs on Postgres 16.",  # how it stands, with no sign of a change
    "It works now.", "The tests pass now.", "The build is green now.", "We're all set now.",  # the session's status
    "The page loads much faster now.",
    "It's port 6380 now.", "Actually, it's port 6380.",  # "it" is what was said before
    "But she retired a long time ago.", "Deborah: Yep, it's become part of my routine now.",  # after an opener too
    "We'll use pnpm now.", "Maybe we switch to pnpm now.", "If the build passes, we deploy with Helm now.",
    "I'm now looking at the logs.",  # the user's own doing
    "now the app folder is renamed, so what next",  # a step of the session just done
    "Iiuc, they are now shared by the old main.ts and the new stuff.",  # a guess, of what was said before
    "Thinking level off is now brighter than thinking level minimal.",  # how it looks
    "Now run the tests.", "No, don't use pip here.",  # a request, a rule
    "Update the readme to say that this is a real time chess version.",  # "Update" the verb, not "Update:"
    "For now, make it so there is no AI, but all pieces are controlled by the user",  # for now: a step
    "Pieces during cooldown can be pre-moved.",  # "pre-moved" is no move
    "Now going back to our docs, read hooks.md in full",  # a request after "Now …,"
    "Did we move to Postgres 17?",
])
def test_no_update_where_nothing_about_the_project_changed(said):
    assert as_update(said) is None


def test_an_update_in_a_conversation_about_life_is_left_to_the_other_rules():
    assert user_fact("We're on Postgres 17 now, not 16.", "", about_code=False) is None
