"""Backfilling reflect_job over past days (imported history) with real Dagster runs: the proposals
stay pending and reviewable, and the sensor finds the days that were never reflected."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import dagster as dg
import pytest

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.defs.resources import WorkspaceResource
from memory_pipeline.flows.reflect import unreflected_days
from memory_pipeline.flows.review.decisions import apply_review, decide_ids
from memory_pipeline.flows.runs import get_instance, run_job_for_days
from memory_pipeline.models import Segment
from memory_pipeline.resources.files.observation_files import observation_path
from memory_pipeline.resources.redis.proposals import ProposalStore
from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis
from memory_pipeline_tests.support.dagster_defs import definitions, sensor
from memory_pipeline_tests.support.review_fixtures import fact, observation
from memory_pipeline_tests.support.doors import redis_limits

pytestmark = pytest.mark.slow
RULES = [
    "never commit generated protobuf stubs", "always pin the terraform provider versions",
    "must run the database migrations inside a transaction", "never deploy the billing service on Fridays",
    "always rotate the staging api keys monthly", "never log customer email addresses",
    "always squash commits before merging to main", "must keep the docker images under 500 MB",
    "never edit vendored Go modules by hand", "always write the changelog entry first",
    "never store secrets in the helm values files", "always run the load test before a release",
    "must review every SQL migration with a second person", "never use floats for money amounts",
]


def write_history(workspace, days: list[str]) -> None:
    for n, (day, rule) in enumerate(zip(days, RULES, strict=True)):
        item = observation(day, f"imported-{n}", [Segment(title="Rule", narrative="A team rule.", facts=[
            fact("high", f'User stated: "{rule}"', key=f"k{n}")])])
        workspace.write_json(observation_path(workspace, day, item.dedupe_key), json.loads(item.model_dump_json()))


def test_a_backfill_of_14_past_days_leaves_every_proposal_pending_and_reviewable(workspace):
    settings = Settings.from_env()
    today = pipeline.local_today(settings)
    days = [(today - timedelta(days=n)).isoformat() for n in range(14, 0, -1)]
    write_history(workspace, days)
    assert unreflected_days(workspace) == days

    runs = run_job_for_days(definitions(), "reflect_job", days, get_instance(workspace, Settings.from_env()))
    assert [r.error for r in runs if not r.success] == []
    store = ProposalStore(RedisStore(connect_redis(None, workspace.state, *redis_limits())))
    pending = store.pending()
    assert sorted(p.text.rstrip(".").lower() for p in pending) == sorted(r.lower() for r in RULES)  # none expired on the spot
    assert [p.id for p in store.all().values() if p.status != "pending"] == []
    staged_on = {today.isoformat(), pipeline.local_today(settings).isoformat()}  # the runs may cross midnight
    assert {p.created for p in pending} <= set(days) and all(p.staged in staged_on for p in pending)
    assert unreflected_days(workspace) == []
    oldest = min(pending, key=lambda p: p.created)
    report = decide_ids(workspace, store, approve=[oldest.id], today=today.isoformat(), now=datetime.now(timezone.utc))
    assert report.promoted == [oldest.id] and oldest.id in workspace.memory_md.read_text()
    later = apply_review(workspace, store, today=(today + timedelta(days=6)).isoformat(), now=datetime.now(timezone.utc))
    assert later.ids("expired") == [] and len(store.pending()) == len(RULES) - 1


def test_the_sensor_requests_the_history_no_reflection_has_read(workspace):
    today = pipeline.local_today(Settings.from_env())
    days = [(today - timedelta(days=n)).isoformat() for n in range(14, 0, -1)]
    write_history(workspace, days)
    resources = {"workspace": WorkspaceResource(settings=Settings.from_env(), root=str(workspace.root))}
    with dg.build_sensor_context(resources=resources) as context:
        requests = sensor("unreflected_days_sensor")(context)
    assert [r.partition_key for r in requests] == days[:7]  # oldest first, yesterday left to the schedule
    assert all(r.tags["memory/trigger"] == "unreflected-history" for r in requests)
