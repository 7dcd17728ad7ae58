"""reflect_day against a real Redis: temporal gradient in the hot list, files kept, log idempotent."""

from __future__ import annotations

import json

from memory_pipeline.flows.observe import hot_entry
from memory_pipeline.flows.reflect import days_to_reflect, load_reflection, reflect_day
from memory_pipeline.models import Segment
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.files.daily_log import DailyLog
from memory_pipeline.resources.llm import LLMClient, default_offline_provider
from memory_pipeline.resources.files.observation_files import load_observations, observation_path
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.support.review_fixtures import fact, observation, redis_server, redis_store  # noqa: F401

DAY = "2026-11-21"


def seed(workspace: Workspace, store) -> list:
    old = observation("2026-11-16", "old", [Segment(title="Redis", narrative="Moved Redis.", facts=[
        fact("high", "Redis listens on port 6380, set in `deploy/redis.conf`"),
        fact("medium", "Modified `deploy/compose.yml`"),
        fact("low", "Wondered about Valkey"),
    ])])
    new = observation(DAY, "new", [Segment(title="Rules", narrative="Conventions.", facts=[
        fact("high", 'User stated: "never use pip, always uv"'),
        fact("medium", "Switched the orders tests to fakeredis; all tests pass"),
    ])])
    for item in (old, new):
        workspace.write_json(observation_path(workspace, item.date, item.dedupe_key), json.loads(item.model_dump_json()))
        store.push_observation(item.date, hot_entry(item))
    return [old, new]


def run(workspace, store):
    return reflect_day(workspace, DAY, llm=LLMClient(default_offline_provider(), None), prompt=load_prompt("reflector"),
                       model="offline", observer_prompt=load_prompt("observer"), redis_store=store)


def test_old_observations_are_redistilled_in_redis_and_kept_on_disk(tmp_path, redis_store):
    workspace = Workspace(tmp_path / "ws").create()
    old, new = seed(workspace, redis_store)
    result = run(workspace, redis_store)
    assert result.hot_entries_redistilled == 1 and result.reflection.redistilled_ids == [old.id]
    [hot] = redis_store.observations("2026-11-16")
    assert hot["distilled"] is True and "6380" in hot["observations"]
    assert "compose.yml" not in hot["observations"] and "Valkey" not in hot["observations"]
    assert hot["tokenCount"] < hot["originalTokenCount"]
    assert len(load_observations(workspace, "2026-11-16")[0].facts) == 3  # the original stays on disk
    assert redis_store.observations(DAY)[0].get("distilled") is None  # recent ones stay detailed
    again = run(workspace, redis_store)
    assert again.hot_entries_redistilled == 0  # replaced once


def test_reflection_is_stored_and_logged_once(tmp_path, redis_store):
    workspace = Workspace(tmp_path / "ws").create()
    seed(workspace, redis_store)
    result = run(workspace, redis_store)
    stored = load_reflection(workspace, DAY)
    assert stored == result.reflection and stored.proposals
    assert {p.section for p in stored.proposals} >= {"Hard Rules"}
    run(workspace, redis_store)
    log = DailyLog(workspace).read(DAY)
    assert log.count("### 🔭 Reflected") == 1
    assert result.reflection.summary in log and "**Stats**: 2 observations from 2 sessions (1 re-distilled)" in log


def test_token_threshold_requests_reflection_once_per_day(redis_store):
    for n in range(3):
        redis_store.push_observation(DAY, {"dedupeKey": f"k{n}", "tokenCount": 20_000})
    redis_store.push_observation("2026-11-20", {"dedupeKey": "small", "tokenCount": 10})
    assert days_to_reflect(redis_store, ["2026-11-20", DAY], 40_000) == [(DAY, 60_000)]
    assert days_to_reflect(redis_store, ["2026-11-20", DAY], 40_000) == []
