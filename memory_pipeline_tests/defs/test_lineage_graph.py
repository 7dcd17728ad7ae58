"""The asset graph a user follows in the UI: transcripts → sessions → observations → reflections
(a 7-day window mapping) → proposals → memory_md, staleness after an Observer prompt edit reaching
the indexes and the reflections that read the day, and the assets that follow their upstream."""

from __future__ import annotations

import shutil
from datetime import date, datetime, timedelta, timezone

import dagster as dg
import pytest
from dagster._core.asset_graph_view.asset_graph_view import AssetGraphView, TemporalContext
from dagster._core.definitions.data_version import CachingStaleStatusResolver, StaleStatus

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.intake.ingest import ingest
from memory_pipeline.flows.runs import get_instance, run_job_for_days
from memory_pipeline.prompts import prompts_dir
from memory_pipeline_tests.support.dagster_defs import definitions
from memory_pipeline_tests.support.paths import SAMPLES
from memory_pipeline_tests.support.doors import env_settings

DAY = "2026-11-01"


def days_after(day: str, count: int) -> list[str]:
    start = date.fromisoformat(day)
    return [(start + timedelta(days=n)).isoformat() for n in range(count)]


def test_transcripts_head_the_graph_and_reflections_read_a_seven_day_window(workspace):
    graph = definitions().resolve_asset_graph()
    transcripts = graph.get(dg.AssetKey("transcripts"))
    assert not transcripts.is_materializable and transcripts.parent_keys == set()
    assert graph.get(dg.AssetKey("sessions")).parent_keys == {dg.AssetKey("transcripts")}
    mapping = graph.get_partition_mapping(dg.AssetKey("reflections"), dg.AssetKey("observations"))
    assert isinstance(mapping, dg.TimeWindowPartitionMapping) and mapping.start_offset == -6
    for name in ("observation_index", "message_index", "proposals"):
        assert graph.get(dg.AssetKey(name)).automation_condition is not None
    assert definitions().resolve_sensor_def("follow_upstream_sensor").default_status == dg.DefaultSensorStatus.RUNNING


def test_the_schedule_runs_in_the_users_time_zone(workspace, monkeypatch):
    monkeypatch.setenv("MEMORY_TIMEZONE", "America/New_York")
    assert definitions().resolve_schedule_def("reflect_schedule").execution_timezone == "America/New_York"


def stale(instance, defs, name: str, day: str) -> StaleStatus:
    view = AssetGraphView(temporal_context=TemporalContext(effective_dt=datetime.now(timezone.utc), last_event_id=None),
                          instance=instance, asset_graph=defs.resolve_asset_graph())
    resolver = CachingStaleStatusResolver(instance, defs.resolve_asset_graph(), loading_context=view)
    return resolver.get_status(dg.AssetKey(name), day)


STALE, FRESH = StaleStatus.STALE, StaleStatus.FRESH


@pytest.mark.slow
def test_staleness_follows_a_changed_day_through_the_window_and_a_change_of_the_observers_rules(
        workspace, monkeypatch, tmp_path):
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    emit_session_event(workspace, SAMPLES / "pi-api-refactor.jsonl", trigger="shutdown",
                       captured_at=datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc), settings=env_settings())
    assert ingest(workspace, definitions(), Settings.from_env(), day=DAY).success
    window = days_after(DAY, 8)  # DAY…DAY+6 read DAY's observations; DAY+7 does not
    instance = get_instance(workspace, Settings.from_env())
    assert all(r.success for r in run_job_for_days(definitions(), "reflect_job", window, instance))
    defs = definitions()
    names = ("sessions", "observations", "observation_index", "message_index", "reflections")
    assert {stale(instance, defs, name, DAY) for name in names} == {FRESH}

    emit_session_event(workspace, SAMPLES / "codex-ci-fix.jsonl", trigger="shutdown",  # a session added to DAY
                       captured_at=datetime(2026, 11, 1, 15, 0, tzinfo=timezone.utc), settings=env_settings())
    assert ingest(workspace, definitions(), Settings.from_env(), day=DAY).days[0].observations == 2
    assert [stale(instance, defs, "reflections", d) for d in window] == [STALE] * 7 + [FRESH]
    assert stale(instance, defs, "observation_index", DAY) == FRESH  # ingest re-indexed the day
    assert all(r.success for r in run_job_for_days(definitions(), "reflect_job", window[:7], instance))

    edited = tmp_path / "prompts"
    shutil.copytree(prompts_dir(), edited)
    observer = edited / "observer.md"
    observer.write_text("Keep every fact short.\n" + observer.read_text())
    monkeypatch.setenv("MEMORY_PROMPTS_DIR", str(edited))
    assert {stale(instance, definitions(), name, DAY) for name in names} == {FRESH}  # the offline rules never read it
    rules = pipeline.offline_rules_sha  # the offline Observer's rules change (their source's hash)
    monkeypatch.setattr(pipeline, "offline_rules_sha", lambda name: rules(name) + ("+1" if name == "observer" else ""))
    after = definitions()
    assert [stale(instance, after, name, DAY) for name in names] == [FRESH, STALE, STALE, FRESH, STALE]
    assert {stale(instance, after, "reflections", d) for d in window} == {STALE}  # all read the Observer's rules
