"""The ledger flow with the real embedding model: supersession from a session, idempotent re-runs,
a corrupted line reported, the weekly rebuild equal to the incremental index, knowledge pages."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memory_pipeline.flows.ledger.events import add_event, record_day
from memory_pipeline.flows.ledger.weekly import weekly_rebuild
from memory_pipeline.flows.ledger.pack import build_packs
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.embedding.embedder import get_embedder
from memory_pipeline.resources.files.ledger_files import LedgerFiles
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.ledger.state import LedgerState
from memory_pipeline_tests.flows.ledger_sessions import POSTGRES_15, POSTGRES_16, observe_text, offline_llm

DAY1, DAY2 = "2026-11-20", "2026-11-21"


@pytest.fixture(scope="module")
def embedder():
    return get_embedder("all-MiniLM-L6-v2")


def record(workspace: Workspace, day: str, embedder):
    return record_day(workspace, day, llm=offline_llm(), prompt=load_prompt("ledger"), model="offline",
                      embedder=embedder)


def postgres_events(workspace: Workspace):
    return [e for e in LedgerFiles(workspace).read().events if e.entity == "postgres"]


def test_moving_from_postgres_15_to_16_supersedes_the_earlier_fact(workspace_dir, tmp_path, embedder):
    workspace = Workspace(workspace_dir).create()
    observe_text(workspace, tmp_path, DAY1, "pg15", POSTGRES_15)
    first = record(workspace, DAY1, embedder)
    assert first.appended and all(e.id.startswith("EVT-20261120-") for e in first.appended)
    build_packs(workspace, DAY1)  # the knowledge pages as of day 1: day 2's rebuild notes what changed
    observe_text(workspace, tmp_path, DAY2, "pg16", POSTGRES_16)
    second = record(workspace, DAY2, embedder)
    moved = next(e for e in second.appended if "Postgres 15 to 16" in e.content)
    old = next(e for e in first.appended if "Postgres 15 as the main database" in e.content)
    assert moved.supersedes == old.id and moved.entity == old.entity == "postgres" and moved.type == "decision"
    assert moved.session == "pg16" and moved.message_ids and moved.source == f"memory/{DAY2}.md"

    pack = build_packs(workspace, DAY2).pack()
    assert moved.id in pack.text and old.id not in pack.text
    assert "Postgres 15 as the main database" not in workspace.pack_path().read_text()
    assert old.id in [e.id for e in postgres_events(workspace)]  # still in the ledger
    superseded = LedgerFiles(workspace).read_json("index/superseded.json")
    assert superseded[old.fact_id]["by"] == moved.id
    page = (workspace.knowledge_dir / "entities" / "postgres.md").read_text()
    assert f"{old.id} (decision): For the billing service" in page and f"superseded by {moved.id}" in page
    assert "[verified: 2026-11-21]" in page
    assert f"\n## What changed\n- {DAY2}: added {moved.id}" in page
    assert f"removed {old.id} (superseded by {moved.id})" in page.split("## What changed", 1)[1]


def test_re_recording_a_day_appends_nothing(workspace_dir, tmp_path, embedder):
    workspace = Workspace(workspace_dir).create()
    observe_text(workspace, tmp_path, DAY1, "pg15", POSTGRES_15)
    first = record(workspace, DAY1, embedder)
    before = workspace.ledger_path.read_bytes()
    again = record(workspace, DAY1, embedder)
    assert first.appended and again.appended == [] and workspace.ledger_path.read_bytes() == before
    assert again.report.passed


def test_a_corrupted_line_is_reported_with_its_number(workspace_dir, tmp_path, embedder):
    workspace = Workspace(workspace_dir).create()
    observe_text(workspace, tmp_path, DAY1, "pg15", POSTGRES_15)
    record(workspace, DAY1, embedder)
    lines = workspace.ledger_path.read_text().splitlines()
    lines.insert(1, '{"id": "EVT-20261120-099", "type": "fact", "content": "half a line')
    workspace.ledger_path.write_text("\n".join(lines) + "\n")
    build = build_packs(workspace, DAY1)
    valid = next(c for c in build.report.checks if c.name == "valid_json")
    assert not valid.passed and valid.count == 1 and valid.found[0].startswith("line 2:")
    assert not build.report.passed and "⚠️ integrity: valid_json failed" in build.pack().text
    report = LedgerFiles(workspace).read_json("integrity-report.json")
    assert report["passed"] is False


def test_weekly_rebuild_equals_the_incremental_index_and_archives_old_chains(workspace_dir, embedder):
    workspace = Workspace(workspace_dir).create()
    at = lambda day: datetime.fromisoformat(f"{day}T12:00:00+00:00")  # noqa: E731
    keys = add_event(workspace, dict(type="commitment", priority="P2", content="Need to rotate the deploy keys",
                                     entity="deploy_keys", ts=at("2026-09-01")))
    add_event(workspace, dict(type="commitment", priority="P2", content="Rotated the deploy keys", status="closed",
                              related=[keys.id], entity="deploy_keys", ts=at("2026-09-03")))
    still_open = add_event(workspace, dict(type="commitment", priority="P1", content="Need to renew the TLS cert",
                                           entity="tls", ts=at("2026-11-01")))
    rule = add_event(workspace, dict(type="constraint", priority="P0", content="Never log customer emails",
                                     entity="logging", ts=at("2026-08-01")))
    add_event(workspace, dict(type="constraint", priority="P0", content="Never log customer emails or names",
                              entity="logging", supersedes=rule.id, ts=at("2026-08-02")))
    files = LedgerFiles(workspace)
    incremental = files.open_loops()
    result = weekly_rebuild(workspace, "2026-11-22", now=datetime(2026, 11, 22, 4, tzinfo=timezone.utc))
    assert result.index_matches and incremental == result.rebuilt == [still_open.id]
    assert result.archived == 2 and len(result.summaries) == 1  # the closed key rotation; P0 chain kept
    kept = files.read().events
    assert rule.id in {e.id for e in kept} and keys.id not in {e.id for e in kept}
    assert keys.id in files.archive_ids() and workspace.ledger_archive_path(2026).exists()
    assert result.report.passed and LedgerState.of(kept).open_loops.keys() == {still_open.id}
