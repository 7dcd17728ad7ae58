"""`memory-pipeline review …` and `memory-pipeline brief` against a real Redis."""

from __future__ import annotations

import json
from datetime import date, datetime, timezone

import pytest

from memory_pipeline.config import Settings
from memory_pipeline.flows.review.proposals import stage_proposals
from memory_pipeline.main import main
from memory_pipeline.models import ProposalDraft, Reflection
from memory_pipeline.resources.files.daily_log import DailyLog
from memory_pipeline.resources.embedding.embedder import get_embedder
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.support.review_fixtures import proposal_store, redis_server, redis_store  # noqa: F401
from memory_pipeline_tests.support.doors import env_settings

pytestmark = pytest.mark.slow  # every test stages proposals, which embeds them with the model

TODAY = date.today().isoformat()


@pytest.fixture(autouse=True)
def today_now(monkeypatch):
    """TODAY as each test starts, not as the module was imported: a suite collected before midnight and run
    after it staged proposals under the day before the CLI's own."""
    monkeypatch.setitem(globals(), "TODAY", date.today().isoformat())


def staged(workspace_dir, store) -> Workspace:
    workspace = Workspace(workspace_dir).create()
    drafts = [ProposalDraft(section=section, text=text, source_observation_ids=["o"], sessions=["s"])
              for section, text in [("Hard Rules", "Never use pip in the orders repo"),
                                    ("Patterns", "Share one Redis pool per process"),
                                    ("User", "Prefers small commits")]]
    stage_proposals(workspace, store, Reflection(date=TODAY, proposals=drafts), embedder=get_embedder(),
                    today=TODAY, now=datetime.now(timezone.utc), draw=lambda: "test", settings=env_settings())
    return workspace


def run_json(capsys, *argv):
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def pid(n: int) -> str:
    return f"p-{TODAY.replace('-', '')}-00{n}-test"  # the random part drawn by `staged`


def test_list_show_approve_reject_edit(workspace_dir, proposal_store, capsys):
    workspace = staged(workspace_dir, proposal_store)
    code, listed = run_json(capsys, "review", "list")
    assert code == 0 and [p["id"] for p in listed["proposals"]] == [pid(1), pid(2), pid(3)]
    code, shown = run_json(capsys, "review", "show", pid(2))
    assert code == 0 and shown["section"] == "Patterns" and shown["sessions"] == ["s"]
    code, edited = run_json(capsys, "review", "edit", pid(3), "Prefers", "small,", "focused", "commits")
    assert code == 0 and edited["edited"] == [pid(3)]
    code, decided = run_json(capsys, "review", "approve", pid(1), pid(3))
    assert code == 0 and decided["approved"] == [pid(1), pid(3)] and sorted(decided["promoted"]) == [pid(1), pid(3)]
    code, rejected = run_json(capsys, "review", "reject", pid(2))
    assert code == 0 and rejected["rejected"] == [pid(2)]
    memory = workspace.memory_md.read_text()
    assert f"- ({TODAY}) Prefers small, focused commits <!-- {pid(3)} -->" in memory and "Redis pool" not in memory
    code, everything = run_json(capsys, "review", "list", "--all")
    assert {p["id"]: p["status"] for p in everything["proposals"]} == {pid(1): "approved", pid(2): "rejected",
                                                                      pid(3): "approved"}
    log = DailyLog(workspace).read(TODAY)
    assert all(f"`{pid(n)}`" in log for n in (1, 2, 3)) and "✏️ edited" in log


def test_bad_ids_exit_2_with_a_clear_message(workspace_dir, proposal_store, capsys):
    staged(workspace_dir, proposal_store)
    assert main(["review", "approve", "p-20000101-001"]) == 2
    assert "unknown proposal id p-20000101-001" in capsys.readouterr().out
    assert main(["review", "show", "p-20000101-001"]) == 2
    assert "unknown proposal id" in capsys.readouterr().err


def test_human_output_and_review_md_ticks_through_sync(workspace_dir, proposal_store, capsys):
    workspace = staged(workspace_dir, proposal_store)
    workspace.review_md.write_text(workspace.review_md.read_text().replace(f"- [ ] `{pid(2)}`", f"- [x] `{pid(2)}`"))
    assert main(["review", "sync"]) == 0
    out = capsys.readouterr().out
    assert f"✅ approved {pid(2)}" in out and f"📌 promoted {pid(2)} into MEMORY.md" in out
    assert main(["review", "list"]) == 0
    assert pid(1) in capsys.readouterr().out


def test_brief_command(workspace_dir, proposal_store, capsys):
    staged(workspace_dir, proposal_store)
    code, brief = run_json(capsys, "brief", "--budget-tokens", "500")
    assert code == 0 and brief["pending_proposals"] == 3 and brief["budget_tokens"] == 500
    assert main(["brief"]) == 0
    assert "📋 3 pending memory proposals in REVIEW.md — review when ready" in capsys.readouterr().out
    assert main(["brief", "--date", "21-11-2026"]) == 2


def test_a_cli_approval_is_a_memory_md_materialization_the_ui_shows(workspace, proposal_store, capsys):
    import dagster as dg

    from memory_pipeline.flows.runs import get_instance

    staged(workspace.root, proposal_store)
    code, _ = run_json(capsys, "review", "approve", pid(2))
    assert code == 0
    event = get_instance(workspace, Settings.from_env()).get_latest_materialization_event(dg.AssetKey("memory_md"))
    materialization = event.asset_materialization
    assert materialization.partition == TODAY and event.run_id == ""  # recorded without a run
    metadata = materialization.metadata
    assert metadata["memory_md"].value == workspace.memory_md.read_text()
    assert metadata["promoted_ids"].value == [pid(2)] and metadata["changed_by"].value == "cli:review approve"
    assert f"`{pid(2)}`" in metadata["sources"].value and metadata["source_ids"].value[pid(2)]["sessions"] == ["s"]
