"""Every recall, brief and pack says which project it looked at; a folder whose project has no
memories looks at every project; a project with memories but no hit says what other projects hold;
a folder names one project whether or not it still exists."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone

import pytest

from memory_pipeline.config import Settings
from memory_pipeline.flows.emit import emit_session_event
from memory_pipeline.flows.hooks.claude_code import run_claude_code_hook
from memory_pipeline.flows.ingest import ingest
from memory_pipeline.main import main
from memory_pipeline.models import HookPayload
from memory_pipeline.resources.projects import resolve_project
from memory_pipeline_tests.flows.test_projects import DAY, repo, sessions, worktree
from memory_pipeline_tests.support.dagster_defs import definitions

@pytest.fixture
def two_projects(workspace, tmp_path, monkeypatch):
    """shop and api remembered (one session each, on DAY); a scratch folder in no repository."""
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    (tmp_path / "t").mkdir()
    shop, api, first, second = sessions(tmp_path)
    at = datetime(2026, 11, 10, 12, 0, tzinfo=timezone.utc)
    for path in (first, second):
        emit_session_event(workspace, path, trigger="shutdown", captured_at=at)
    assert ingest(workspace, definitions(), Settings.from_env(), day=DAY).success
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    return shop, api, scratch


def cli_json(capsys, *args: str) -> dict:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_a_folder_without_memories_looks_at_every_project_and_says_so(two_projects, monkeypatch, capsys, workspace):
    _, _, scratch = two_projects
    monkeypatch.chdir(scratch)
    found = cli_json(capsys, "recall", "how do we deploy Fly.io alembic", "--no-service")
    assert found["scope"]["project"] is None and found["scope"]["asked"] == "scratch"
    assert found["scope"]["why"] == "this folder's project scratch has no memories: looked at all projects"
    assert {"shop", "api"} <= {h["project"] for h in found["hits"]}
    assert main(["recall", "deploy Fly.io", "--no-service"]) == 0
    assert "scope: this folder's project scratch has no memories: looked at all projects" in capsys.readouterr().out

    brief = cli_json(capsys, "brief", "--date", DAY)
    assert brief["project"] is None and "looked at all projects" in brief["scope"]
    assert "Fly.io" in brief["text"] and "alembic" in brief["text"] and "· all projects" in brief["text"]

    pack = cli_json(capsys, "pack", "--date", DAY)
    assert pack["project"] is None and pack["text"].startswith(f"# Recall Pack — {DAY} · all projects")
    assert "looked at all projects" in pack["scope"]["why"]

    started = run_claude_code_hook(workspace, HookPayload(session_id="new", hook_event_name="SessionStart",
                                                          source="startup", cwd=str(scratch)),
                                   now=datetime(2026, 11, 10, 18, 0, tzinfo=timezone.utc))
    context = started.output["hookSpecificOutput"]["additionalContext"]
    assert "looked at all projects" in context and "Fly.io" in context and "alembic" in context


@pytest.mark.slow
def test_a_project_with_memories_but_no_hit_says_what_other_projects_hold(two_projects, monkeypatch, capsys):
    _, api, _ = two_projects
    monkeypatch.chdir(api)
    scoped = cli_json(capsys, "recall", "how do we deploy", "--no-service")
    assert scoped["scope"]["project"] == "api"
    assert scoped["scope"]["why"].startswith("looked at this folder's project api")
    assert scoped["hits"] and all(h["project"] == "api" or h["scope"] == "user" for h in scoped["hits"])

    shop_only = ("recall", "storefront Fly.io", "--session", "s-shop", "--tier", "messages", "--no-service")
    none_here = cli_json(capsys, *shop_only)
    assert none_here["hits"] == [] and none_here["scope"]["other_hits"] > 0
    assert none_here["scope"]["why"].startswith("no hits in project api; ")
    assert none_here["scope"]["why"].endswith("hits in other projects: add --all-projects to see them")
    everywhere = cli_json(capsys, *shop_only, "--all-projects")
    assert everywhere["hits"] and everywhere["scope"]["why"] == "looked at all projects (--all-projects)"
    assert cli_json(capsys, "brief", "--date", DAY)["scope"].startswith("looked at this folder's project api")


def test_a_worktree_names_its_repository_whether_or_not_it_still_exists(tmp_path, workspace):
    settings = Settings(workspace=workspace.root)
    shop = repo(tmp_path / "src", "shop")
    fix = worktree(shop, tmp_path / "src" / "shop-fix")  # outside its repository, its name no convention
    inside = shop / "src" / "cart"  # a folder of the repository, not made yet
    assert resolve_project(fix, settings) == resolve_project(fix / "pkg", settings) == "shop"
    assert resolve_project(inside, settings) == "shop"
    shutil.rmtree(fix)
    assert resolve_project(fix, settings) == resolve_project(fix / "pkg", settings) == "shop"
    assert resolve_project(inside, settings) == "shop"
