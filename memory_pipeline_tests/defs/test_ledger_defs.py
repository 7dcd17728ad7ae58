"""Wiring of the ledger stage: assets, checks, the ingest job ending in the pack, the weekly
schedule, and the ledger's code version (prompt hash + model)."""

from __future__ import annotations

from datetime import datetime, timezone

import dagster as dg
import pytest

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.defs.ledger import LEDGER_CHECKS, PACK_CHECKS
from memory_pipeline.defs.review import TODAY_TAG
from memory_pipeline_tests.support.dagster_defs import assets, definitions, schedule

pytestmark = pytest.mark.slow  # every test builds or runs the Dagster definitions


def test_ledger_assets_checks_and_code_version(workspace):
    ledger, pack = assets("ledger", "recall_pack")
    assert {c.name for c in ledger.check_specs} == set(LEDGER_CHECKS)
    assert {c.name for c in pack.check_specs} == set(PACK_CHECKS)
    assert {dep.asset_key.to_user_string() for dep in next(iter(pack.specs)).deps} == {"ledger"}
    assert {dep.asset_key.to_user_string() for dep in next(iter(ledger.specs)).deps} == {"observations"}
    settings = Settings.from_env()
    version = pipeline.stage_prompt("ledger", settings).code_version(pipeline.model_for(settings, "ledger"))
    assert next(iter(ledger.specs)).code_version == version == pipeline.code_version("ledger", settings)


def test_ingest_job_ends_in_the_pack_and_the_weekly_rebuild_runs_on_sundays(workspace):
    defs = definitions()
    nodes = {n.name for n in defs.resolve_job_def("ingest_job").nodes}
    assert {"observations", "ledger", "recall_pack"} <= nodes and "ledger_maintenance" not in nodes
    assert {n.name for n in defs.resolve_job_def("ledger_weekly").nodes} == {"ledger_maintenance"}
    weekly = schedule("ledger_weekly_schedule")
    assert weekly.cron_schedule == "0 4 * * 0"
    context = dg.build_schedule_context(scheduled_execution_time=datetime(2026, 11, 22, 4, tzinfo=timezone.utc))
    request = weekly(context)
    assert request.run_key == "ledger-weekly-2026-11-22" and request.tags[TODAY_TAG] == "2026-11-22"


def test_the_weekly_asset_rebuilds_the_index_and_checks_it_against_the_incremental_one(workspace):
    from memory_pipeline.defs.resources import build_resources
    from memory_pipeline.flows.ledger.events import add_event
    from memory_pipeline.resources.files.ledger_files import LedgerFiles

    at = datetime(2026, 11, 20, 9, tzinfo=timezone.utc)
    first = add_event(workspace, dict(type="commitment", priority="P1", content="Need to renew the cert", ts=at))
    add_event(workspace, dict(type="commitment", priority="P2", content="Need to tidy the README", ts=at))
    result = dg.materialize(assets("ledger_maintenance"), resources=build_resources(Settings.from_env()), tags={TODAY_TAG: "2026-11-22"})
    [check] = result.get_asset_check_evaluations()
    assert result.success and check.check_name == "weekly_index_matches_incremental" and check.passed
    assert LedgerFiles(workspace).open_loops()[0] == first.id
