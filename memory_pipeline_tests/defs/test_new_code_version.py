"""A change of what answers the Observer (for the offline provider its rules, not the prompt file it
does not read) changes the code versions of observations, the observation index and reflections;
the automation sensor's condition (evaluated against the workspace's real Dagster instance) sees it
and requests those assets again for the recent days that were materialized, once."""

from __future__ import annotations

import shutil
from datetime import datetime, timezone

import dagster as dg
import pytest

from memory_pipeline.config import Settings
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.intake.inbox import take_inbox
from memory_pipeline.flows.runs import get_instance, run_job_for_days
from memory_pipeline_tests.support.dagster_defs import definitions
from memory_pipeline_tests.support.friction_sessions import FILLER, claude_session
from memory_pipeline_tests.support.paths import PROJECT_ROOT
from memory_pipeline_tests.support.doors import env_settings

pytestmark = pytest.mark.slow
RERUN = ("observations", "observation_index", "reflections")


def requested(result: dg.EvaluateAutomationConditionsResult, name: str) -> set[str]:
    return set(result.get_requested_partitions(dg.AssetKey(name)))


def test_a_rules_change_reruns_the_recent_days_of_the_stages_it_changes(workspace, tmp_path, monkeypatch):
    from memory_pipeline import pipeline

    prompts = tmp_path / "prompts"
    shutil.copytree(PROJECT_ROOT / "prompts", prompts)
    monkeypatch.setenv("MEMORY_PROMPTS_DIR", str(prompts))
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    day = datetime.now(timezone.utc).date().isoformat()
    (tmp_path / "t").mkdir()
    session = claude_session(tmp_path / "t" / "s.jsonl", "s-1", "/home/dev/src/shop", day,
                             [("user", "We deploy the shop with fly, never heroku"), *FILLER])
    emit_session_event(workspace, session, trigger="shutdown", captured_at=datetime.now(timezone.utc), settings=env_settings())
    take_inbox(workspace, settings=env_settings())
    instance = get_instance(workspace, Settings.from_env())
    before = definitions()
    for job in ("ingest_job", "reflect_job"):
        [run] = run_job_for_days(before, job, [day], instance)
        assert run.success, run.error

    first = dg.evaluate_automation_conditions(before, instance)  # the sensor's first tick: versions recorded
    assert not any(requested(first, name) for name in RERUN)
    unchanged = dg.evaluate_automation_conditions(before, instance, cursor=first.cursor)
    assert not any(requested(unchanged, name) for name in RERUN)

    observer = prompts / "observer.md"  # the offline Observer does not read its instructions: nothing to redo
    observer.write_text(observer.read_text(encoding="utf-8") + "\nKeep every fact under 30 words.\n")
    old = before.resolve_assets_def("observations").code_versions_by_key[dg.AssetKey("observations")]
    prompt_edit = definitions()
    assert prompt_edit.resolve_assets_def("observations").code_versions_by_key[dg.AssetKey("observations")] == old
    unchanged = dg.evaluate_automation_conditions(prompt_edit, instance, cursor=unchanged.cursor)
    assert not any(requested(unchanged, name) for name in RERUN)

    rules = pipeline.offline_rules_sha  # the offline Observer's rules change (their source's hash)
    monkeypatch.setattr(pipeline, "offline_rules_sha", lambda name: rules(name) + ("+1" if name == "observer" else ""))
    after = definitions()
    assert after.resolve_assets_def("observations").code_versions_by_key[dg.AssetKey("observations")] != old
    edited = dg.evaluate_automation_conditions(after, instance, cursor=unchanged.cursor)
    assert {name: requested(edited, name) for name in RERUN} == {name: {day} for name in RERUN}

    for job in ("ingest_job", "reflect_job"):  # what the sensor's runs do
        [run] = run_job_for_days(after, job, [day], instance)
        assert run.success, run.error
    handled = dg.evaluate_automation_conditions(after, instance, cursor=edited.cursor)
    assert not any(requested(handled, name) for name in RERUN)
