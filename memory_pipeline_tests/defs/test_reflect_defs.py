"""Wiring of reflection and review: definitions, the 06:00 schedule, the threshold and REVIEW.md sensors."""

from __future__ import annotations

from datetime import date, datetime, timezone

import dagster as dg
import pytest

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.defs.resources import LLMResource, RedisResource, WorkspaceResource
from memory_pipeline.flows.review.decisions import render_review
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.support.dagster_defs import assets, definitions, schedule, sensor
from memory_pipeline_tests.support.review_fixtures import proposal_store, redis_server, redis_store  # noqa: F401

pytestmark = pytest.mark.slow  # Dagster sensors, schedules and definitions


def test_definitions_hold_the_assets_jobs_schedule_and_sensors():
    defs = definitions()
    assert {"reflect_job", "review_job"} <= {job.name for job in defs.jobs}
    assert defs.resolve_schedule_def("reflect_schedule").cron_schedule == "0 6 * * *"
    assert defs.resolve_sensor_def("review_sensor") and defs.resolve_sensor_def("reflect_threshold_sensor")
    job = defs.resolve_job_def("reflect_job")
    assert {n.name for n in job.graph.node_defs} == {"reflections", "proposals", "memory_md"}
    [reflections] = assets("reflections")
    spec = next(iter(reflections.specs))
    model = LLMResource(workspace=WorkspaceResource(settings=Settings.from_env())).model_for("reflect")
    version = pipeline.code_version("reflect", Settings.from_env())
    settings = Settings.from_env()
    observer = pipeline.stage_prompt("observer", settings).code_version(
        LLMResource(workspace=WorkspaceResource(settings=settings)).model_for("observe"))
    reflector = pipeline.stage_prompt("reflector", settings).code_version(model)
    assert spec.code_version == version == f"{reflector}+observe-{observer}"


def test_schedule_reflects_the_previous_day():
    context = dg.build_schedule_context(scheduled_execution_time=datetime(2026, 11, 22, 6, 0, tzinfo=timezone.utc))
    request = schedule("reflect_schedule")(context)
    assert request.partition_key == "2026-11-21" and request.run_key == "reflect-2026-11-21"


def test_threshold_sensor_requests_one_reflection_per_day(tmp_path, redis_store, monkeypatch):
    monkeypatch.setenv("MEMORY_REFLECT_THRESHOLD_TOKENS", "100")
    today = date.today().isoformat()
    redis_store.push_observation(today, {"dedupeKey": "a", "tokenCount": 150})
    workspace = WorkspaceResource(settings=Settings.from_env(), root=str(tmp_path / "ws"))
    resources = {"redis": RedisResource(workspace=workspace), "workspace": workspace}
    with dg.build_sensor_context(resources=resources) as context:
        first = sensor("reflect_threshold_sensor")(context)
    assert [(r.partition_key, r.tags["memory/trigger"]) for r in first] == [(today, "token-threshold")]
    with dg.build_sensor_context(resources=resources) as context:
        assert isinstance(sensor("reflect_threshold_sensor")(context), dg.SkipReason)


def test_review_sensor_fires_on_user_edits_only(tmp_path, proposal_store):
    workspace = Workspace(tmp_path / "ws").create()
    resources = {"workspace": WorkspaceResource(settings=Settings.from_env(), root=str(workspace.root))}
    review_sensor = sensor("review_sensor")

    def evaluate(cursor=None):
        with dg.build_sensor_context(resources=resources, cursor=cursor) as context:
            return review_sensor(context), context.cursor

    assert isinstance(evaluate()[0], dg.SkipReason)
    render_review(workspace, proposal_store, datetime.now(timezone.utc))
    result, cursor = evaluate()
    assert isinstance(result, dg.SkipReason)  # the pipeline's own write
    workspace.review_md.write_text(workspace.review_md.read_text() + "\n- [x] `p-20261121-001` a tick\n")
    request, cursor = evaluate(cursor)
    assert isinstance(request, dg.RunRequest) and request.partition_key == date.today().isoformat()
    assert request.run_key.startswith("review-")
    assert isinstance(evaluate(cursor)[0], dg.SkipReason)


def test_threshold_sensor_does_not_start_the_embedded_redis(tmp_path, monkeypatch):
    """Every observation writes the hot list through Redis (and starts it): with the embedded server
    stopped there is nothing new to weigh, and an idle daemon must not keep the server up."""
    from memory_pipeline.resources.redis.embedded_redis import EmbeddedRedis

    monkeypatch.delenv("REDIS_URL", raising=False)
    settings = Settings.from_env()
    workspace = WorkspaceResource(settings=settings, root=str(tmp_path / "ws"))
    resources = {"redis": RedisResource(workspace=workspace), "workspace": workspace}
    with dg.build_sensor_context(resources=resources) as context:
        result = sensor("reflect_threshold_sensor")(context)
    assert isinstance(result, dg.SkipReason) and "Redis is not running" in result.skip_message
    assert EmbeddedRedis(workspace.get().state, settings.runtime_dir).server_pids() == []
