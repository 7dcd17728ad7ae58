"""The deployment past one laptop, the parts that run here: Dagster on PostgreSQL with the queued
run coordinator (deploy/dagster.yaml, unchanged), Redis as a standalone server by URL with a
password, and `dagster dev`'s daemon driving the sensor → ingest → reflect path with runs at once.
"""

from __future__ import annotations

import datetime
import shutil
import time

import pytest

from memory_pipeline_tests.support.paths import PROJECT_ROOT, SAMPLES
from memory_pipeline_tests.support.services import postgres, tcp_redis  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.slow, pytest.mark.services]

DEPLOY_YAML = PROJECT_ROOT / "deploy" / "dagster.yaml"
DAYS = ("2026-11-20", "2026-11-21")  # the samples: one session on the 20th, two on the 21st
RUN_TIMEOUT = 600.0  # per wait; each run is a process that imports Dagster and torch


def failure(instance, run_id: str) -> list[str]:
    """The failure messages in a run's event log."""
    return [str(e.dagster_event.event_specific_data)[:2000] for e in instance.all_logs(run_id)
            if e.is_dagster_event and e.dagster_event.is_failure]


def wait_for_runs(instance, job_name: str, count: int, timeout: float = RUN_TIMEOUT, own_runs_only: bool = True) -> list:
    """The job's run records once `count` of them have finished; fails on a failed run or timeout.
    A schedule's tick (02:00 maintenance, …) that falls inside the test is not one of its runs."""
    import dagster as dg

    deadline = time.monotonic() + timeout
    while True:
        records = instance.get_run_records(dg.RunsFilter(job_name=job_name))
        records = [r for r in records if not own_runs_only or "dagster/schedule_name" not in r.dagster_run.tags]
        failed = [r.dagster_run for r in records if r.dagster_run.status == dg.DagsterRunStatus.FAILURE]
        assert not failed, f"{job_name} failed: {[(r.run_id, r.tags, failure(instance, r.run_id)) for r in failed]}"
        done = [r for r in records if r.dagster_run.status == dg.DagsterRunStatus.SUCCESS]
        if len(done) >= count:
            return done
        assert time.monotonic() < deadline, f"{job_name}: {len(done)} of {count} runs done in {timeout:.0f} s"
        time.sleep(2)


def overlaps(a, b) -> bool:
    return a.start_time < b.end_time and b.start_time < a.end_time


@pytest.mark.timeout(1500)  # six run processes: over 10 min measured on 2 cores shared with other jobs
def test_sensor_ingest_reflect_on_postgres_and_a_redis_server(workspace, postgres, tcp_redis, tmp_path,  # noqa: F811
                                                              monkeypatch):
    import dagster as dg
    import redis
    import sqlalchemy as sa
    from dagster_graphql import DagsterGraphQLClient

    from memory_pipeline.flows.emit import emit_session_event
    from memory_pipeline_tests.ui.dagster_server import dagster_dev

    home = tmp_path / "dagster"
    shutil.copy(DEPLOY_YAML, home / "dagster.yaml")
    monkeypatch.setenv("DAGSTER_POSTGRES_URL", postgres.url)
    monkeypatch.setenv("REDIS_URL", tcp_redis.url)
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    for sample in sorted(SAMPLES.glob("*.jsonl")):
        emit_session_event(workspace, sample, trigger="shutdown", use_transcript_time=True)

    with dagster_dev(tmp_path / "dagster-dev.log", timeout=300) as base:
        instance = dg.DagsterInstance.from_config(str(home))
        wait_for_runs(instance, "ingest_job", 2)  # the inbox sensor: one run per day for its waiting events
        client = DagsterGraphQLClient("127.0.0.1", port_number=int(base.rsplit(":", 1)[1]))
        for _ in range(2):  # two re-runs of one day queued at once (a backfill beside a sensor run)
            client.submit_job_execution("ingest_job", tags={"dagster/partition": "2026-11-21"})
        # the nightly maintenance of yesterday queued beside them, as its 02:00 schedule does
        yesterday = (datetime.date.today() - datetime.timedelta(days=1)).isoformat()
        client.submit_job_execution("maintenance_job", tags={"dagster/partition": yesterday})
        ingest = wait_for_runs(instance, "ingest_job", 4)
        wait_for_runs(instance, "maintenance_job", 1)
        for day in DAYS:  # both days' reflections queued at once
            client.submit_job_execution("reflect_job", tags={"dagster/partition": day})
        reflect = wait_for_runs(instance, "reflect_job", 2)
        pools = {name: instance.event_log_storage.get_concurrency_info(name) for name in ("vector_store", "review")}
        instance.dispose()

    # the queued run coordinator's tag limit: the 21st's two ingest runs never ran at once
    same_day = [r for r in ingest if r.dagster_run.tags.get("dagster/partition") == "2026-11-21"]
    assert len(same_day) == 3 and not any(overlaps(a, b) for a in same_day for b in same_day if a is not b)
    assert sorted(r.dagster_run.tags["dagster/partition"] for r in reflect) == list(DAYS)
    # the index and review steps took their pools (limit 1 from deploy/dagster.yaml) and gave them back
    for name, pool in pools.items():
        assert (pool.limit, pool.claimed_slots, pool.pending_steps) == (1, [], []), (name, pool)

    # every run and its events are in PostgreSQL
    engine = sa.create_engine(postgres.url)
    with engine.connect() as db:
        rows = list(db.execute(sa.text("select pipeline_name, status, run_body from runs")))
        # a schedule's tick, or the automation sensor's run (an asset following its upstream day, on the
        # sensor's own 60 s clock), that fell inside the test is not one of its runs
        runs = [(name, status) for name, status, tags in rows
                if "dagster/schedule_name" not in tags and "dagster/from_automation_condition" not in tags]
        automation = [name for name, _, tags in rows if "dagster/from_automation_condition" in tags]
        events = db.execute(sa.text("select count(*) from event_logs")).scalar()
    engine.dispose()
    assert set(automation) <= {"__ASSET_JOB"}, automation  # the sensor runs assets, never one of the jobs counted
    assert sorted(runs) == [("ingest_job", "SUCCESS")] * 4 + [("maintenance_job", "SUCCESS")] + [("reflect_job", "SUCCESS")] * 2
    assert events > 0

    # the hot lists are in the Redis server at REDIS_URL; no embedded server was started
    client = redis.Redis.from_url(tcp_redis.url, decode_responses=True)
    try:
        assert all(client.llen(f"memory:observations:{day}") > 0 for day in DAYS)
    finally:
        client.close()
    assert not (workspace.state_path("redis") / "redis.pid").exists()
    for day in DAYS:
        assert list(workspace.observations_dir(day).glob("*.json"))
        assert workspace.reflection_path(day).is_file()
