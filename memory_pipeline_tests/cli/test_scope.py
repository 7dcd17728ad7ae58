"""Every recall, brief and pack says which project it looked at; a folder whose project has no
memories is shown the user's own memories only, and told the other projects exist; a project with
memories but no hit says what other projects hold;
a folder names one project whether or not it still exists."""

from __future__ import annotations

import json
import shutil
import subprocess
from datetime import datetime, timezone

import pytest

from memory_pipeline.config import Settings
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.hooks.claude_code import run_claude_code_hook
from memory_pipeline.flows.intake.ingest import ingest
from memory_pipeline.main import main
from memory_pipeline.models import HookPayload
from memory_pipeline.resources.projects import resolve_project
from memory_pipeline_tests.flows.test_projects import DAY, repo, sessions, worktree
from memory_pipeline_tests.support.dagster_defs import definitions
from memory_pipeline_tests.support.doors import env_settings

@pytest.fixture
def two_projects(workspace, tmp_path, monkeypatch):
    """shop and api remembered (one session each, on DAY); a scratch folder in no repository."""
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    (tmp_path / "t").mkdir()
    shop, api, first, second = sessions(tmp_path)
    at = datetime(2026, 11, 10, 12, 0, tzinfo=timezone.utc)
    for path in (first, second):
        emit_session_event(workspace, path, trigger="shutdown", captured_at=at, settings=env_settings())
    assert ingest(workspace, definitions(), Settings.from_env(), day=DAY).success
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    return shop, api, scratch


def cli_json(capsys, *args: str) -> dict:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


SHOP_SECTION = "## Hard Rules — shop\n\n- (2026-11-10) Never deploy the shop storefront to Heroku <!-- p-20261110-001-aaaa -->\n"
USER_SECTION = "## User\n\n- (2026-11-10) Answer in short paragraphs <!-- p-20261110-002-bbbb -->\n"


async def mcp_search(workspace, folder, query: str) -> str:
    """The MCP server's `search`, by the SDK's own client over stdio, its root `folder`."""
    import os
    import sys

    from mcp import Client, StdioServerParameters
    from mcp_types import ListRootsResult, Root

    async def list_roots(context) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=folder.as_uri(), name=folder.name)])

    env = dict(os.environ, MEMORY_WORKSPACE=str(workspace.root), PYTHONPATH=os.pathsep.join(sys.path))
    params = StdioServerParameters(command=sys.executable, args=["-m", "memory_pipeline.main", "mcp"], env=env,
                                   cwd=str(folder))
    async with Client(params, mode="legacy", list_roots_callback=list_roots) as client:
        result = await client.call_tool("search", {"query": query, "limit": 10})
        assert not result.is_error
        return "".join(c.text for c in result.content if c.type == "text")


@pytest.mark.slow
def test_a_first_session_in_a_new_repository_gets_the_users_memories_only_at_every_door(
        two_projects, monkeypatch, capsys, workspace, tmp_path):
    """Briefing (the SessionStart hook), CLI recall and MCP search side by side, in a new repository
    beside two remembered ones: one scope, the user's own memories, a line saying where the others are."""
    import anyio

    from memory_pipeline_tests.flows.test_projects import API_RULE, SHOP_RULE

    workspace.memory_md.write_text("# MEMORY.md\n\n" + SHOP_SECTION + "\n" + USER_SECTION)
    new = tmp_path / "src" / "newrepo"
    (new / ".git").mkdir(parents=True)
    monkeypatch.chdir(new)
    said = ("this folder's project newrepo has no memories yet: showing your user-level memories only; "
            "2 other projects have memories (api, shop)")

    started = run_claude_code_hook(workspace, HookPayload(session_id="first", hook_event_name="SessionStart",
                                                          source="startup", cwd=str(new)),
                                   now=datetime(2026, 11, 10, 18, 0, tzinfo=timezone.utc), settings=env_settings())
    briefing = started.output["hookSpecificOutput"]["additionalContext"]
    found = cli_json(capsys, "recall", "how do we deploy Fly.io alembic short answers", "--no-service")
    with capsys.disabled():  # the server's stderr needs a real file
        searched = anyio.run(mcp_search, workspace, new, "how do we deploy Fly.io alembic short answers")
        print("--- briefing ---", briefing, "--- recall ---", json.dumps(found, indent=1)[:3000],
              "--- MCP search ---", searched, sep="\n")  # side by side, with `pytest -s`

    assert f"{said}: --all-projects to look" in briefing and "· project newrepo" in briefing
    assert "Answer in short paragraphs" in briefing and "short answers" in briefing  # the user's own, everywhere
    for other in ("Heroku", "Fly.io", "alembic", SHOP_RULE, API_RULE):
        assert other not in briefing
    assert found["scope"]["project"] == "newrepo" and found["scope"]["why"] == f"{said}: --all-projects to look"
    assert found["hits"] and all(h["scope"] == "user" for h in found["hits"])
    assert any("short answers" in h["text"] for h in found["hits"])
    assert f"{said}: all_projects=true to look" in searched and "short answers" in searched
    hits_shown = searched.split("```text", 1)[1]  # the hits, after the heading that repeats the query
    assert "short answers" in hits_shown and "Fly.io" not in hits_shown and "alembic" not in hits_shown

    brief = cli_json(capsys, "brief", "--date", DAY)
    assert brief["project"] == "newrepo" and brief["scope"] == found["scope"]["why"]
    from memory_pipeline.services.mcp_server import answer_call

    briefed = json.loads(answer_call(json.dumps({"tool": "brief", "arguments": {}, "folder": str(new)}).encode(),
                                     Settings.from_env()))  # MCP's brief says the same line as the hook's
    assert not briefed["is_error"] and f"{said}: all_projects=true to look" in briefed["text"]
    assert "Answer in short paragraphs" in briefed["text"] and "Heroku" not in briefed["text"]
    pack = cli_json(capsys, "pack", "--date", DAY)
    assert pack["text"].startswith(f"# Recall Pack — {DAY} · user-level only") and "Fly.io" not in pack["text"]
    wide = cli_json(capsys, "recall", "how do we deploy Fly.io alembic", "--no-service", "--all-projects")
    assert {"shop", "api"} <= {h["project"] for h in wide["hits"]}  # the others, when asked


@pytest.mark.slow
def test_a_session_naming_no_folder_gets_the_users_memories_only_at_every_door(
        two_projects, monkeypatch, capsys, workspace):
    """A hook payload with no `cwd`, an MCP call with no folder and a CLI run in a folder of no
    project know no project: by the one rule they see the user's own memories and a line saying
    which projects have memories, never every project's (nor an error)."""
    from memory_pipeline import hook_entry
    from memory_pipeline.cli.hooks.install import hook_argv
    from memory_pipeline.flows.hooks.memory import find_memories, hook_scope
    from memory_pipeline.services.mcp_server import answer_call
    from memory_pipeline_tests.cli.hook_helpers import first_user_turns, hook_env
    from memory_pipeline_tests.flows.test_projects import API_RULE, SHOP_RULE

    workspace.memory_md.write_text("# MEMORY.md\n\n" + SHOP_SECTION + "\n" + USER_SECTION)
    others = "showing your user-level memories only; 2 other projects have memories (api, shop)"
    settings = Settings.from_env()
    start = json.dumps({"session_id": "no-folder", "hook_event_name": "SessionStart", "source": "startup"}).encode()
    root = str(workspace.root.resolve())
    transcript = first_user_turns("claude-code/tool_heavy.jsonl", 2, workspace.root / "session.jsonl")
    prompt = json.dumps({"session_id": "no-folder", "hook_event_name": "UserPromptSubmit", "prompt": "hi",
                         "transcript_path": str(transcript)}).encode()

    def door(stdin: bytes) -> subprocess.CompletedProcess:
        return subprocess.run(hook_argv(), input=stdin, env=hook_env(workspace.root), capture_output=True, timeout=180)

    try:  # the hook door: the first start is owed its briefing (no service yet), the first prompt carries it
        owed = door(start)
        assert owed.returncode == 0 and owed.stdout == b"", owed.stderr
        assert hook_entry.service_pid(root) is not None
        answers = [door(prompt), door(start)]  # then a start answered by the service
    finally:
        hook_entry.stop_service(root)
    for answer in answers:
        assert answer.returncode == 0, answer.stderr
        briefing = json.loads(answer.stdout)["hookSpecificOutput"]["additionalContext"]
        assert f"the session named no folder: {others}: --all-projects to look" in briefing
        assert "Answer in short paragraphs" in briefing and "short answers" in briefing
        for other in ("Heroku", "Fly.io", "alembic", SHOP_RULE, API_RULE, "· all projects"):
            assert other not in briefing

    from memory_pipeline.flows.hooks.context import refresh_recall_cache
    from memory_pipeline.resources.files.hook_state import HookStateStore

    # the warm zone's background recall of a session whose hooks named no folder: no project's, not every one
    HookStateStore(workspace).update("no-folder", lambda s: setattr(s, "pending_queries", [
        "how do we deploy the shop storefront to Fly.io", "alembic migrations of the billing api"]),
        datetime.now(timezone.utc))
    refresh_recall_cache(workspace, settings, "no-folder")
    entries = HookStateStore(workspace).load("no-folder").recall_cache
    assert [e.query for e in entries] == ["how do we deploy the shop storefront to Fly.io",
                                          "alembic migrations of the billing api"]  # both asked
    cached = [h for entry in entries for h in entry.hits]
    assert all(h.scope == "user" or not h.project for h in cached), [(h.project, h.text) for h in cached]

    looked = hook_scope(workspace, None, settings)  # what the prompt hooks recall with
    assert looked.project == "" and looked.why == f"the session named no folder: {others}: --all-projects to look"
    found = find_memories(workspace, settings, "do I prefer short answers", limit=10, project=looked.project)
    assert found.note is None and found.hits and all(h.scope == "user" for h in found.hits)

    call = {"tool": "search", "arguments": {"query": "how do we deploy Fly.io alembic short answers", "limit": 10},
            "folder": ""}
    searched = json.loads(answer_call(json.dumps(call).encode(), settings))
    assert not searched["is_error"], searched["text"]
    assert f"the client named no folder: {others}: all_projects=true to look" in searched["text"]
    hits_shown = searched["text"].split("```text", 1)[1]
    assert "short answers" in hits_shown and "Fly.io" not in hits_shown and "alembic" not in hits_shown
    briefed = json.loads(answer_call(json.dumps({"tool": "brief", "arguments": {}, "folder": ""}).encode(), settings))
    assert f"the client named no folder: {others}: all_projects=true to look" in briefed["text"]
    for other in ("Heroku", SHOP_RULE, API_RULE, "· all projects"):
        assert other not in briefed["text"]

    monkeypatch.chdir("/")  # a folder in no project
    recalled = cli_json(capsys, "recall", "how do we deploy Fly.io alembic short answers", "--no-service")
    assert recalled["scope"]["why"] == f"this folder is in no project: {others}: --all-projects to look"
    assert recalled["hits"] and all(h["scope"] == "user" for h in recalled["hits"])


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


@pytest.mark.slow
def test_a_weak_match_is_shown_when_asked_said_to_be_weak_and_kept_out_of_a_hooks_context(
        two_projects, monkeypatch, capsys, workspace):
    """Between "nothing" and an answer: the CLI and the MCP tool show weak matches with a line saying
    so; a hook, which puts hits in the agent's context unasked, gives none. A question memory answers
    is a strong match at every door."""
    from memory_pipeline.flows.hooks.memory import find_memories
    from memory_pipeline.flows.memory_tools import search_memory
    from memory_pipeline.stages.projects import ProjectScope

    shop, _, _ = two_projects
    monkeypatch.chdir(shop)
    settings = Settings.from_env()
    answered, unsure = "how do we deploy the shop storefront to Fly.io", "which cloud region holds the shop database"
    strong = cli_json(capsys, "recall", answered, "--no-service")
    weak = cli_json(capsys, "recall", unsure, "--no-service")
    assert strong["confidence"]["level"] == "strong" and any("Fly.io" in h["text"] for h in strong["hits"])
    assert weak["confidence"]["level"] == "weak", weak["confidence"]
    assert len(weak["hits"]) > 3  # shown whole, not cut to the few nearest as "nothing" is
    assert main(["recall", unsure, "--no-service"]) == 0
    assert "weak matches only" in " ".join(capsys.readouterr().out.split())
    assert main(["recall", answered, "--no-service"]) == 0
    assert "weak matches only" not in " ".join(capsys.readouterr().out.split())

    scope = ProjectScope("shop")
    searched = search_memory(workspace, settings, scope, unsure)
    assert "weak matches only" in searched
    assert sum(1 for h in weak["hits"] if h["id"] in searched) == min(len(weak["hits"]), 5)  # short: the first 5
    assert "weak matches only" not in search_memory(workspace, settings, scope, answered)

    kept_out = find_memories(workspace, settings, unsure, limit=10, project="shop")
    assert kept_out.hits == [] and kept_out.note and "weak matches only" in kept_out.note
    given = find_memories(workspace, settings, answered, limit=10, project="shop")
    assert given.note is None and any("Fly.io" in h.text for h in given.hits)


@pytest.mark.slow
def test_a_question_memory_cannot_answer_says_so_over_the_hits_it_lists(two_projects, monkeypatch, capsys, workspace):
    """CLI and MCP search: "nothing in memory answers this" over as many nearest hits as are listed (a small
    memory lists fewer than three: a hit far weaker than the best is not listed)."""
    from memory_pipeline.flows.memory_tools import search_memory
    from memory_pipeline.stages.projects import ProjectScope

    shop, _, _ = two_projects
    monkeypatch.chdir(shop)
    question = "what is the capital of France"
    found = cli_json(capsys, "recall", question, "--no-service")
    assert not found["confidence"]["answered"] and 1 <= len(found["hits"]) <= 10
    shown = min(len(found["hits"]), 3)
    nearest = "the nearest hit, not an answer" if shown == 1 else f"the {shown} nearest hits, not answers"
    assert main(["recall", question, "--no-service"]) == 0
    assert "nothing in memory answers this" in (said := " ".join(capsys.readouterr().out.split()))
    assert f"{nearest}:" in said
    searched = search_memory(workspace, Settings.from_env(), ProjectScope("shop"), question)
    assert f"{nearest}: {shown} hit{'s' if shown != 1 else ''} (columns" in searched, searched
