"""The deployment past one laptop, the parts that run here: Dagster on PostgreSQL with the queued
run coordinator (deploy/dagster.yaml, unchanged), Redis as a standalone server by URL with a
password, and `dagster dev`'s daemon driving the sensor → ingest → reflect path with runs at once;
and a run process killed while it holds a store pool's slot, which must not hold the pool for good.
A wait that runs out prints every run, the pools' claims and queues, and `dagster dev`'s log.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import re
import shutil
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memory_pipeline_tests.support.paths import PROJECT_ROOT, SAMPLES
from memory_pipeline_tests.support.services import postgres, tcp_redis  # noqa: F401  (fixtures)
from memory_pipeline_tests.support.doors import env_settings

pytestmark = [pytest.mark.slow, pytest.mark.services]

DEPLOY_YAML = PROJECT_ROOT / "deploy" / "dagster.yaml"
DAYS = ("2026-11-20", "2026-11-21")  # the samples: one session on the 20th, two on the 21st
RUN_TIMEOUT = 600.0  # per wait; each run is a process that imports Dagster and torch
POOLS = ("vector_store", "review")  # deploy/dagster.yaml's pools of one


def failure(instance, run_id: str) -> list[str]:
    """The failure messages in a run's event log."""
    return [str(e.dagster_event.event_specific_data)[:2000] for e in instance.all_logs(run_id)
            if e.is_dagster_event and e.dagster_event.is_failure]


def every_run(instance) -> list[str]:
    """Each run in the instance, one line: job, status, partition, what made it, when it was made,
    started and ended."""
    import dagster as dg

    def clock(timestamp: float | None) -> str:
        return "-" if timestamp is None else time.strftime("%H:%M:%S", time.gmtime(timestamp))

    lines = []
    for record in instance.get_run_records(dg.RunsFilter()):
        run, tags = record.dagster_run, record.dagster_run.tags
        made_by = next((key for key in ("dagster/retry_number", "dagster/schedule_name",  # a retry keeps the
                                        "dagster/from_automation_condition", "dagster/sensor_name")  # tags it had
                        if key in tags), "submitted")
        lines.append(f"{run.job_name} {run.status.value} {tags.get('dagster/partition')} {made_by} "
                     f"made {record.create_timestamp:%H:%M:%S} started {clock(record.start_time)} "
                     f"ended {clock(record.end_time)}")
    return lines


def log_tail(path: Path, lines: int = 60) -> str:
    """The last lines of `dagster dev`'s log that are not a step's DEBUG event, colours removed."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        return f"(no log: {error})"
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in text.splitlines()]
    return "\n".join([line for line in plain if " - DEBUG - " not in line][-lines:])


def fail_with_state(instance, reason: str, log: Path | None) -> None:
    """Fail the test with `reason`, every run, the store pools' claims and queues, and `dagster dev`'s log."""
    runs = "\n".join(every_run(instance))
    pools = "\n".join(f"{name}: {instance.event_log_storage.get_concurrency_info(name)}" for name in POOLS)
    tail = log_tail(log) if log else ""
    pytest.fail(f"{reason}\nruns:\n{runs}\npools:\n{pools}\ndagster dev's log:\n{tail}")


def wait_for_runs(instance, job_name: str, count: int, timeout: float = RUN_TIMEOUT, own_runs_only: bool = True,
                  log: Path | None = None) -> list:
    """The job's run records once `count` of them have finished; fails on a failed run or timeout,
    printing every run in the instance and the tail of `dagster dev`'s log (`log`).
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
        if time.monotonic() >= deadline:
            fail_with_state(instance, f"{job_name}: {len(done)} of {count} runs done in {timeout:.0f} s", log)
        time.sleep(2)


def overlaps(a, b) -> bool:
    return a.start_time < b.end_time and b.start_time < a.end_time


@dataclass
class Deployment:
    instance: Any  # dg.DagsterInstance on the deployment's PostgreSQL
    client: Any  # DagsterGraphQLClient to its `dagster dev`
    log: Path  # `dagster dev`'s log


@contextlib.contextmanager
def deployment(workspace, postgres, tcp_redis, tmp_path: Path, monkeypatch) -> Iterator[Deployment]:  # noqa: F811
    """`dagster dev` on deploy/dagster.yaml (PostgreSQL, a TCP redis-server by URL), with the samples'
    shutdown events waiting in the inbox for its sensor."""
    import dagster as dg
    from dagster_graphql import DagsterGraphQLClient

    from memory_pipeline.flows.intake.emit import emit_session_event
    from memory_pipeline_tests.ui.dagster_server import dagster_dev

    home = tmp_path / "dagster"
    shutil.copy(DEPLOY_YAML, home / "dagster.yaml")
    monkeypatch.setenv("DAGSTER_POSTGRES_URL", postgres.url)
    monkeypatch.setenv("REDIS_URL", tcp_redis.url)
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    for sample in sorted(SAMPLES.glob("*.jsonl")):
        emit_session_event(workspace, sample, trigger="shutdown", use_transcript_time=True, settings=env_settings())
    log = tmp_path / "dagster-dev.log"
    with dagster_dev(log, timeout=300) as base:
        instance = dg.DagsterInstance.from_config(str(home))
        try:
            yield Deployment(instance, DagsterGraphQLClient("127.0.0.1", port_number=int(base.rsplit(":", 1)[1])), log)
        finally:
            instance.dispose()


@pytest.mark.timeout(1500)  # six run processes: over 10 min measured on 2 cores shared with other jobs
def test_sensor_ingest_reflect_on_postgres_and_a_redis_server(workspace, postgres, tcp_redis, tmp_path,  # noqa: F811
                                                              monkeypatch):
    import redis
    import sqlalchemy as sa

    with deployment(workspace, postgres, tcp_redis, tmp_path, monkeypatch) as deployed:
        instance, client, log = deployed.instance, deployed.client, deployed.log
        wait_for_runs(instance, "ingest_job", 2, log=log)  # the inbox sensor: one run per day for its waiting events
        for _ in range(2):  # two re-runs of one day queued at once (a backfill beside a sensor run)
            client.submit_job_execution("ingest_job", tags={"dagster/partition": "2026-11-21"})
        # the nightly maintenance of yesterday queued beside them, as its 02:00 schedule does
        yesterday = (datetime.date.today() - datetime.timedelta(days=1)).isoformat()
        client.submit_job_execution("maintenance_job", tags={"dagster/partition": yesterday})
        ingest = wait_for_runs(instance, "ingest_job", 4, log=log)
        wait_for_runs(instance, "maintenance_job", 1, log=log)
        for day in DAYS:  # both days' reflections queued at once
            client.submit_job_execution("reflect_job", tags={"dagster/partition": day})
        reflect = wait_for_runs(instance, "reflect_job", 2, log=log)
        pools = {name: instance.event_log_storage.get_concurrency_info(name) for name in POOLS}

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


def worker_pid(instance, run_id: str, step_key: str) -> int | None:
    """The pid of the process running the run's step (its STEP_START event says it)."""
    for entry in instance.all_logs(run_id):
        event = entry.dagster_event
        if event is not None and event.event_type_value == "STEP_START" and event.step_key == step_key:
            return event.pid
    return None


def kill_a_store_pool_holder(deployed: Deployment, deadline: float) -> tuple[str, str]:
    """SIGKILL the run process whose step holds the `vector_store` slot, while it holds it: the run and
    step killed. An index step holds the slot for about a second here, so the pool is read every 20 ms;
    when every ingest run has ended before one was caught, the 21st is ingested again for another try."""
    import dagster as dg

    instance, polls = deployed.instance, 0
    while time.monotonic() < deadline:
        for slot in instance.event_log_storage.get_concurrency_info("vector_store").claimed_slots:
            pid = worker_pid(instance, slot.run_id, slot.step_key)
            claimed = [(c.run_id, c.step_key) for c in
                       instance.event_log_storage.get_concurrency_info("vector_store").claimed_slots]
            if pid is not None and (slot.run_id, slot.step_key) in claimed:
                os.kill(pid, signal.SIGKILL)
                return slot.run_id, slot.step_key
        polls += 1
        if polls % 100 == 0:
            runs = [r.dagster_run for r in instance.get_run_records(dg.RunsFilter(job_name="ingest_job"))]
            if runs and all(run.is_finished for run in runs):
                deployed.client.submit_job_execution("ingest_job", tags={"dagster/partition": DAYS[1]})
        time.sleep(0.02)
    raise AssertionError("no run's step was seen holding the vector_store pool")


@pytest.mark.timeout(1200)
def test_a_run_killed_while_it_holds_the_store_pool_gives_the_pool_back(workspace, postgres, tcp_redis,  # noqa: F811
                                                                          tmp_path, monkeypatch):
    """A run process killed (the kernel's OOM killer, a node lost) while its index step holds the
    `vector_store` slot: Dagster marks the run failed but keeps its claim, and with a pool of one every
    later index step would wait for good (a day's re-runs queued behind them). deploy/dagster.yaml's
    run monitoring frees a finished run's slots (`free_slots_after_run_end_seconds`): the pool comes back,
    the run's retry and the other day's run complete."""
    import dagster as dg

    with deployment(workspace, postgres, tcp_redis, tmp_path, monkeypatch) as deployed:
        instance, log = deployed.instance, deployed.log
        killed_run, killed_step = kill_a_store_pool_holder(deployed, time.monotonic() + RUN_TIMEOUT)
        killed_day = instance.get_run_by_id(killed_run).tags["dagster/partition"]
        deadline = time.monotonic() + RUN_TIMEOUT
        while True:
            records = instance.get_run_records(dg.RunsFilter(job_name="ingest_job"))
            status = {r.dagster_run.run_id: r.dagster_run.status for r in records}
            done_days = {r.dagster_run.tags["dagster/partition"] for r in records
                         if r.dagster_run.status == dg.DagsterRunStatus.SUCCESS}
            pool = instance.event_log_storage.get_concurrency_info("vector_store")
            if set(DAYS) <= done_days and not pool.claimed_slots and not pool.pending_steps:
                break
            if time.monotonic() >= deadline:
                fail_with_state(instance, f"killed {killed_step} of run {killed_run} ({killed_day}); the runs "
                                f"after it did not complete in {RUN_TIMEOUT:.0f} s", log)
            time.sleep(2)
    assert status[killed_run] == dg.DagsterRunStatus.FAILURE
    retries = [r for r in records if r.dagster_run.tags.get("dagster/parent_run_id") == killed_run]
    assert [r.dagster_run.status for r in retries] == [dg.DagsterRunStatus.SUCCESS]  # run_retries ran it again
