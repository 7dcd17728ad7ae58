"""Tools that do one job: an update naming one replaces a fact that says another is used."""

from __future__ import annotations

import pytest

from memory_pipeline.stages.alternatives import replaces_alternative, states_use, tools_named


def test_tools_are_named_by_job_a_name_of_two_words_included():
    assert tools_named("Logs go to Grafana Loki and tests run on Vitest.") == {
        "observability": {"grafana loki"}, "test runner": {"vitest"}}
    assert tools_named("The npm-shrinkwrap file and ts-jest config") == {}  # parts of other names


@pytest.mark.parametrize("update, old", [
    ("We use pnpm now.", "We use npm for this repo."),
    ("We use Vitest now.", "Our tests run on Jest."),
    ("We use Grafana now.", "Our logs go to Datadog."),
    ("Deploys go through Argo CD now.", "Deploys go through Jenkins."),
    ("We moved the orders service to MySQL.", "The orders service runs on Postgres 16."),
])
def test_an_update_naming_a_tool_replaces_a_fact_saying_another_of_its_job_is_used(update, old):
    assert replaces_alternative(update, old)


@pytest.mark.parametrize("update, old", [
    ("We use pnpm now.", "npm install fails with EACCES on the CI runner."),  # a mention, no use
    ("We use Vitest now.", "Never run jest with --watch in CI."),
    ("We use Vite now.", "A bug in webpack breaks the build."),
    ("Deploys go through Argo CD now.", "CI runs on GitHub Actions."),  # another job
    ("We use pnpm now.", "Our tests run on Jest."),
    ("We use pnpm now.", "We use pnpm workspaces for the monorepo."),  # the same tool
    ("We dropped npm for pnpm.", "We use yarn."),  # it says which one it replaces: npm
])
def test_a_fact_that_mentions_a_tool_of_another_job_or_the_same_tool_or_not_the_replaced_one_stays(update, old):
    assert not replaces_alternative(update, old)


def test_a_statement_of_what_the_setup_uses_is_told_from_a_mention():
    assert states_use("Our tests run on Jest.") and states_use("We use pnpm now.")
    assert not states_use("npm install fails with EACCES.") and not states_use("We use the new parser.")


@pytest.mark.parametrize("update, old", [
    ("We use mise now.", "We use asdf for tool versions."),
    ("Local containers run on Podman now.", "We use Docker for the local stack."),
    ("We use Prisma now.", "The API is built with TypeORM."),
])
def test_a_switch_of_version_manager_container_runtime_or_orm_replaces_the_old_one(update, old):
    assert replaces_alternative(update, old)


def test_a_name_that_is_an_everyday_word_is_no_tool():
    assert not states_use("The team is in a rush before the release.")
