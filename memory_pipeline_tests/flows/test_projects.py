"""Memory per project, through the real path (emit → ingest → recall / brief / hooks): what was
learned in one repository stays there, the user's own preferences go everywhere, a worktree is
its repository, and memory written before projects existed is filed when its day is re-run."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from memory_pipeline.config import Settings
from memory_pipeline.flows.brief import build_brief
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.hooks.claude_code import run_claude_code_hook
from memory_pipeline.flows.intake.ingest import ingest
from memory_pipeline.flows.recall.client import recall
from memory_pipeline.models import HookPayload
from memory_pipeline.resources.embedding.embedder import get_embedder
from memory_pipeline.resources.files.observation_files import load_observations
from memory_pipeline.resources.projects import repository_root, resolve_project
from memory_pipeline.resources.vectors.stores import workspace_store
from memory_pipeline_tests.support.dagster_defs import definitions
from memory_pipeline_tests.support.friction_sessions import FILLER, claude_session
from memory_pipeline_tests.support.doors import env_settings

DAY = "2026-11-10"
SHOP_RULE = "We deploy the shop storefront to Fly.io and never to Heroku because of the cold starts"
API_RULE = "We always run the alembic migrations of the billing api before the deploy"
PREFERENCE = "I prefer short answers without a summary at the end"


def repo(root, name):
    (root / name / ".git").mkdir(parents=True)
    return root / name


def worktree(main, folder):
    """A `git worktree add`-shaped folder: a `.git` file pointing into the main repository."""
    gitdir = main / ".git" / "worktrees" / folder.name
    gitdir.mkdir(parents=True)
    (gitdir / "commondir").write_text("../..\n")
    folder.mkdir(parents=True)
    (folder / ".git").write_text(f"gitdir: {gitdir}\n")
    return folder


def test_a_folder_resolves_to_its_repository_and_a_worktree_to_the_main_one(tmp_path):
    shop = repo(tmp_path, "shop")
    (shop / "src" / "cart").mkdir(parents=True)
    fix = worktree(shop, tmp_path / "elsewhere" / "shop-fix-login")
    module = shop / "vendor" / "payments"
    module.mkdir(parents=True)
    (module / ".git").write_text(f"gitdir: {shop / '.git' / 'modules' / 'payments'}\n")  # a submodule: no commondir
    plain = Settings(workspace=tmp_path / "workspace")
    assert repository_root(shop / "src" / "cart") == shop.resolve()
    assert repository_root(fix) == shop.resolve()
    assert resolve_project(shop / "src" / "cart", plain) == resolve_project(fix, plain) == "shop"
    assert resolve_project(module, plain) == "payments"
    assert resolve_project(tmp_path / "plain-folder", plain) == "plain-folder"  # gone, no repository: its name
    # folders that no longer exist here (another machine, a removed worktree): conventional worktree paths
    assert resolve_project("/home/u/projects/spotter-worktrees/spotter-dov", plain) == "spotter"
    assert resolve_project("/home/u/src/shop/.worktrees/fix", plain) == "shop"
    assert resolve_project("/home/u/src/shop/.claude/worktrees/x", plain) == "shop"
    assert resolve_project(None, plain) == ""
    settings = Settings(workspace=tmp_path / "workspace", project_map="*/checkouts/acme-*=acme; /srv/legacy=old-shop")
    assert resolve_project("/home/u/checkouts/acme-web", settings) == "acme"
    assert resolve_project(str(fix), settings) == "shop"  # no pattern matches: the repository


def sessions(tmp_path):
    shop, api = repo(tmp_path / "src", "shop"), repo(tmp_path / "src", "api")
    fix = worktree(shop, tmp_path / "src" / "shop-fix")  # the shop session runs in a worktree
    first = claude_session(tmp_path / "t" / "shop.jsonl", "s-shop", str(fix), DAY,
                           [("user", SHOP_RULE), ("user", PREFERENCE), *FILLER])
    second = claude_session(tmp_path / "t" / "api.jsonl", "s-api", str(api), DAY, [("user", API_RULE), *FILLER])
    return shop, api, first, second


def projects_of(hits):
    return {(h.project, h.scope) for h in hits}


@pytest.mark.slow
def test_two_projects_stay_apart_and_the_users_preference_goes_to_both(workspace, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    (tmp_path / "t").mkdir()
    shop, api, first, second = sessions(tmp_path)
    at = datetime(2026, 11, 10, 12, 0, tzinfo=timezone.utc)
    for path in (first, second):
        event = emit_session_event(workspace, path, trigger="shutdown", captured_at=at, settings=env_settings()).event
        assert event.data.project == ("shop" if path == first else "api")
    assert ingest(workspace, definitions(), Settings.from_env(), day=DAY).success
    by_session = {o.session_id: o for o in load_observations(workspace, DAY)}
    assert {s: o.project for s, o in by_session.items()} == {"s-shop": "shop", "s-api": "api"}
    preference = [f for f in by_session["s-shop"].facts if "short answers" in f.text]
    assert preference and {f.scope for f in preference} == {"user"}
    assert {f.scope for f in by_session["s-shop"].facts if "Fly.io" in f.text} == {"project"}
    assert "project: shop)" in workspace.daily_log(DAY).read_text()

    in_shop = recall(workspace, "how do we deploy", project="shop", use_service=False, record=False, settings=env_settings())
    in_api = recall(workspace, "how do we deploy", project="api", use_service=False, record=False, settings=env_settings())
    assert in_shop and in_api
    assert all(h.project == "shop" or h.scope == "user" for h in in_shop)
    assert all(h.project == "api" or h.scope == "user" for h in in_api)
    assert not any("Fly.io" in h.text for h in in_api) and not any("alembic" in h.text for h in in_shop)
    answers = recall(workspace, "short answers summary", project="api", use_service=False, record=False, settings=env_settings())
    assert any(h.scope == "user" and "short answers" in h.text for h in answers)  # learned in shop, offered in api
    everywhere = recall(workspace, "deploy migrations Fly.io alembic", use_service=False, record=False, limit=20, settings=env_settings())
    assert {"shop", "api"} <= {h.project for h in everywhere}

    api_brief = build_brief(workspace, today=DAY, project="api").text
    shop_brief = build_brief(workspace, today=DAY, project="shop").text
    assert "alembic" in api_brief and "Fly.io" not in api_brief and "short answers" in api_brief
    assert "Fly.io" in shop_brief and "alembic" not in shop_brief and "short answers" in shop_brief
    assert "Fly.io" in build_brief(workspace, today=DAY).text  # no project: every project

    started = run_claude_code_hook(workspace, HookPayload(session_id="new-api", hook_event_name="SessionStart",
                                                          source="startup", cwd=str(api)),
                                   now=datetime(2026, 11, 10, 18, 0, tzinfo=timezone.utc), settings=env_settings())
    context = started.output["hookSpecificOutput"]["additionalContext"]
    assert "short answers" in context and "alembic" in context and "Fly.io" not in context

    from memory_pipeline.main import main

    monkeypatch.chdir(api / ".git")  # inside the api repository: the CLI's default project
    assert main(["recall", "deploy Fly.io", "--json", "--no-service"]) == 0
    scoped = json.loads(capsys.readouterr().out)["hits"]
    assert scoped and all(h["project"] == "api" or h["scope"] == "user" for h in scoped)
    assert main(["recall", "deploy Fly.io", "--json", "--no-service", "--all-projects"]) == 0
    assert "shop" in {h["project"] for h in json.loads(capsys.readouterr().out)["hits"]}
    assert main(["brief", "--project", "shop", "--date", DAY]) == 0
    assert "Fly.io" in capsys.readouterr().out


@pytest.mark.slow
def test_memory_from_before_projects_is_filed_when_its_day_runs_again(workspace, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    (tmp_path / "t").mkdir()
    _, _, first, second = sessions(tmp_path)
    at = datetime(2026, 11, 10, 12, 0, tzinfo=timezone.utc)
    for path in (first, second):
        emit_session_event(workspace, path, trigger="shutdown", captured_at=at, settings=env_settings())
    assert ingest(workspace, definitions(), Settings.from_env(), day=DAY).success
    # what an older version left: events and observations without a project, points without one
    for path in [*workspace.events_dir(DAY).glob("*.json"), *workspace.observations_dir(DAY).glob("*.json")]:
        record = json.loads(path.read_text())
        (record.get("data", record)).pop("project", None)
        for segment in record.get("segments", []):
            for fact in segment["facts"]:
                fact.pop("scope", None)
        path.write_text(json.dumps(record))
    store = workspace_store(workspace.state, None, dimension=get_embedder().dimension)
    ids = [p.id for p in store.scroll_all()]
    store.for_day(DAY).set_payload(ids, {"project": "", "scope": "project"})
    assert {o.project for o in load_observations(workspace, DAY)} == {""}

    assert ingest(workspace, definitions(), Settings.from_env(), day=DAY).success  # the day again: nothing re-embedded
    assert {o.session_id: o.project for o in load_observations(workspace, DAY)} == {"s-shop": "shop", "s-api": "api"}
    stored = {p.payload.get("project") for p in store.scroll_all()}
    assert stored == {"shop", "api"}
    in_api = recall(workspace, "how do we deploy", project="api", use_service=False, record=False, settings=env_settings())
    assert in_api and not any("Fly.io" in h.text for h in in_api)


@pytest.mark.slow
def test_an_import_of_several_repositories_keeps_them_apart(workspace, monkeypatch):
    from memory_pipeline.flows.intake.importer import import_transcripts
    from memory_pipeline.resources.files.inbox import Inbox
    from memory_pipeline_tests.support.paths import FIXTURES

    monkeypatch.setenv("MEMORY_PARTITIONS_START", "2025-01-01")
    report = import_transcripts(workspace, [FIXTURES / "transcripts"], Settings.from_env())
    # spotter: a worktree (spotter-worktrees/spotter-dov) and the main checkout, both gone from this machine
    assert set(report.projects) == {"spotter", "pi-mono", "synthetic-project"}
    assert report.projects["spotter"] == 2
    filed = {e.data.session_id: e.data.project for day in report.days for e in Inbox(workspace).accepted(day)}
    assert {filed[i.session_id] for i in report.items if i.status == "imported"} == set(report.projects)
    assert all(filed[i.session_id] == i.project for i in report.items if i.status == "imported")
