"""The ingest assets against real services: redis-server, Qdrant local, the embedding model."""

from __future__ import annotations

import shutil

import dagster as dg
import pytest

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.defs.resources import build_resources
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.intake.inbox import take_inbox
from memory_pipeline.prompts import prompts_dir
from memory_pipeline.resources.files.daily_log import DailyLog
from memory_pipeline.resources.files.observation_files import load_observations
from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis
from memory_pipeline.resources.vectors.stores import workspace_store
from memory_pipeline_tests.support.dagster_defs import assets
from memory_pipeline_tests.support.doors import redis_limits, env_settings
from memory_pipeline_tests.support.paths import SAMPLES

pytestmark = pytest.mark.slow
ASSETS = ("sessions", "observations", "observation_index")


def emit_samples(ws) -> str:
    days = set()
    for path in sorted(SAMPLES.glob("*.jsonl")):
        days.add(emit_session_event(ws, path, trigger="shutdown", use_transcript_time=True, settings=env_settings()).event.day)
    emit_session_event(ws, SAMPLES / "claude-code-redis-debugging.jsonl", trigger="compaction",
                       use_transcript_time=True, settings=env_settings())
    take_inbox(ws, settings=env_settings())
    return "2026-11-20"


def materialize(day: str, instance=None) -> dg.ExecuteInProcessResult:
    return dg.materialize(assets(*ASSETS), partition_key=day, resources=build_resources(Settings.from_env()), instance=instance,
                          raise_on_error=False)


def store_count(ws, day: str) -> int:
    return workspace_store(ws.state, None, dimension=384).count(
        {"tier": "observations", "date": day})


def test_day_materializes_observations_log_hot_list_and_points(workspace):
    day = emit_samples(workspace)
    result = materialize(day)
    assert result.success
    found = load_observations(workspace, day)
    assert len(found) == 2  # the claude-code sample's shutdown and compaction
    assert {o.trigger for o in found} == {"shutdown", "compaction"}
    assert all(o.facts for o in found)
    assert any(f.priority == "high" for o in found for f in o.facts)
    log = DailyLog(workspace).read(day)
    assert log.count("### 🔭 Observations") == 2
    assert "sk-ant-api03" not in log and "hunter2" not in log
    redis = RedisStore(connect_redis(None, workspace.state, *redis_limits()))
    assert len(redis.observations(day)) == 2
    points = sum(len(o.facts) + sum(1 for s in o.segments if s.narrative) for o in found)
    assert store_count(workspace, day) == points
    checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
    assert checks == {"unique_ids": True, "facts_cite_sources": True, "index_matches_observations": True}
    metadata = result.asset_materializations_for_node("observations")[0].metadata
    assert metadata["observations"].value == 2 and metadata["facts_high"].value >= 1
    assert "🔭 Observations" in metadata["preview"].value


def test_rematerializing_a_day_is_idempotent(workspace):
    day = emit_samples(workspace)
    assert materialize(day).success
    before_log = DailyLog(workspace).read(day)
    before_files = {p.name: p.read_bytes() for p in workspace.observations_dir(day).iterdir()}
    before_points = store_count(workspace, day)
    again = materialize(day)
    assert again.success
    assert DailyLog(workspace).read(day) == before_log
    assert {p.name: p.read_bytes() for p in workspace.observations_dir(day).iterdir()} == before_files
    assert store_count(workspace, day) == before_points
    index_meta = again.asset_materializations_for_node("observation_index")[0].metadata
    assert index_meta["embedded_now"].value == 0
    assert again.asset_materializations_for_node("observations")[0].metadata["reused"].value == 2
    assert len(RedisStore(connect_redis(None, workspace.state, *redis_limits())).observations(day)) == 2


def test_a_change_of_the_rules_re_derives_and_replaces_log_sections(workspace, tmp_path, monkeypatch):
    day = emit_samples(workspace)
    assert materialize(day).success
    old_version = load_observations(workspace, day)[0].code_version
    edited = tmp_path / "prompts"
    shutil.copytree(prompts_dir(), edited)
    observer = edited / "observer.md"
    observer.write_text(observer.read_text(encoding="utf-8") + "\nPrefer short facts.\n", encoding="utf-8")
    monkeypatch.setenv("MEMORY_PROMPTS_DIR", str(edited))  # the offline Observer never reads its prompt...
    assert materialize(day).asset_materializations_for_node("observations")[0].metadata["observed_now"].value == 0
    rules = pipeline.offline_rules_sha  # ...its rules are what it follows
    monkeypatch.setattr(pipeline, "offline_rules_sha", lambda name: rules(name) + ("+1" if name == "observer" else ""))
    result = materialize(day)
    assert result.success
    assert {o.code_version for o in load_observations(workspace, day)} != {old_version}
    assert DailyLog(workspace).read(day).count("### 🔭 Observations") == 2
    assert result.asset_materializations_for_node("observations")[0].metadata["observed_now"].value == 2
    found = load_observations(workspace, day)
    assert store_count(workspace, day) == sum(len(o.facts) + sum(1 for s in o.segments if s.narrative) for o in found)
    assert all(c.passed for c in result.get_asset_check_evaluations())


def test_redis_unreachable_fails_loudly_but_writes_the_daily_log(workspace, monkeypatch):
    day = emit_samples(workspace)
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    monkeypatch.setenv("MEMORY_REDIS_RETRY_SECONDS", "0")  # before the resources bind their settings: no 3 x 30 s wait
    settings = Settings.from_env()
    assert settings.redis_retry_seconds == 0 and settings.redis_url
    resources = build_resources(settings)
    failed = dg.materialize(assets("sessions", "observations"), partition_key=day, resources=resources,
                            raise_on_error=False)
    assert not failed.success
    retries = [e for e in failed.all_events if e.event_type_value == "STEP_UP_FOR_RETRY"]
    assert len(retries) == 3
    failure = [e for e in failed.all_events if e.is_step_failure][0].step_failure_data.error
    assert "Redis unreachable" in (failure.cause.message if failure.cause else failure.message)
    assert DailyLog(workspace).read(day).count("### 🔭 Observations") == 2
    monkeypatch.delenv("REDIS_URL")
    assert materialize(day).success
    assert len(RedisStore(connect_redis(None, workspace.state, *redis_limits())).observations(day)) == 2


def test_ingest_job_observes_before_it_indexes(workspace):
    """The daily log and the hot list come first: in the job the sensor launches, `observations`
    finishes before either index step starts (the message index used to run first, for a minute)."""
    from memory_pipeline_tests.support.dagster_defs import definitions

    day = emit_samples(workspace)
    with dg.instance_for_test() as instance:
        result = definitions().resolve_job_def("ingest_job").execute_in_process(
            partition_key=day, instance=instance, raise_on_error=False)
    assert result.success
    order = [(e.event_type_value, e.step_key) for e in result.all_events
             if e.event_type_value in ("STEP_START", "STEP_SUCCESS")]
    observed = order.index(("STEP_SUCCESS", "observations"))
    for index_step in ("message_index", "observation_index", "ledger"):
        assert order.index(("STEP_START", index_step)) > observed
    assert order.index(("STEP_START", "observations")) < order.index(("STEP_START", "message_index"))
