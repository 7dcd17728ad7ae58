"""End to end on the shared real transcripts: emit → ingest (real Dagster runs of ingest_job, which
ends in `ledger` and `recall_pack`) → memory/ledger.jsonl, recall/pack.md, the integrity report,
the knowledge base; a re-materialization adds no event."""

from __future__ import annotations

import dagster as dg
import pytest

from memory_pipeline.config import Settings
from memory_pipeline.defs.resources import build_resources
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.intake.ingest import ingest
from memory_pipeline.resources.files.ledger_files import LedgerFiles
from memory_pipeline.resources.files.observation_files import load_observations
from memory_pipeline.stages.ledger.model import id_parts
from memory_pipeline_tests.support.dagster_defs import assets, definitions
from memory_pipeline_tests.support.paths import fixture_transcript
from memory_pipeline_tests.support.doors import env_settings

pytestmark = pytest.mark.slow
TRANSCRIPTS = ("claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
               "codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl",
               "pi/before-compaction.jsonl")


def test_real_transcripts_become_a_ledger_and_a_pack(workspace):
    for relative in TRANSCRIPTS:
        emit_session_event(workspace, fixture_transcript(relative), trigger="shutdown",
                           use_transcript_time=True, settings=env_settings())
    report = ingest(workspace, definitions(), Settings.from_env())
    assert report.days and report.success, [d.error for d in report.days]
    days = [d.day for d in report.days]
    facts = {f.id for day in days for o in load_observations(workspace, day) for f in o.facts}
    files = LedgerFiles(workspace)
    parsed = files.read()
    assert parsed.errors == [] and facts and {e.fact_id for e in parsed.events} <= facts
    for event in parsed.events:
        assert event.source == f"memory/{event.day}.md" and event.session and event.message_ids
        assert id_parts(event.id) is not None and event.day in days
    integrity = files.read_json("integrity-report.json")
    failed = [c["name"] for c in integrity["checks"] if not c["passed"] and c["severity"] == "error"]
    assert integrity["passed"] and failed == []
    projects = {e.project for e in parsed.events} | {"default"}  # a pack per project, none mixing
    assert "pi-mono" in projects  # the pi session's repository
    for project in projects:
        pack = workspace.pack_path(project).read_text()
        assert pack.startswith(f"# Recall Pack — {max(days)}") and len(pack.split()) <= 3000
        assert project == "default" or any(e.id in pack for e in parsed.events if e.project == project)
        assert not any(e.id in pack for e in parsed.events if e.project != project and "user-level" not in e.tags)
    assert list((workspace.knowledge_dir / "entities").glob("*.md"))

    again = dg.materialize(assets("ledger", "recall_pack"), partition_key=days[0], resources=build_resources(Settings.from_env()))
    assert again.success and files.read().events == parsed.events
    checks = {e.check_name: e.passed for e in again.get_asset_check_evaluations()}
    assert {"valid_json", "unique_ids", "sequential_ids", "pack_within_budget", "binding_never_decayed"} <= set(checks)
    assert all(checks[name] for name in ("valid_json", "unique_ids", "sequential_ids", "supersedes_resolve",
                                         "open_loop_completeness", "pack_within_budget", "p0_coverage"))
