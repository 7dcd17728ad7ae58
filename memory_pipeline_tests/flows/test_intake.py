"""pending_days: which days still need a run, and settled days not read again."""

from __future__ import annotations

from datetime import datetime

import dagster as dg
import pytest

from memory_pipeline.config import Settings
from memory_pipeline.flows.intake import inbox as intake
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.intake.inbox import pending_days, take_inbox
from memory_pipeline.models import Observation, stable_id
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.files.observation_files import observation_path
from memory_pipeline.resources.workspace import atomic_write_text
from memory_pipeline_tests.support.paths import SAMPLES
from memory_pipeline_tests.support.doors import env_settings

DAYS = ("2026-11-18", "2026-11-19", "2026-11-20")
VERSION = "observer-v1"


def observe(ws, day: str, version: str = VERSION) -> None:
    """Write the day's observations as the observations asset would (the pipeline is not under test)."""
    for event in Inbox(ws).accepted(day):
        key = event.data.dedupe_key
        observation = Observation(id=stable_id(key), dedupe_key=key, session_id=event.data.session_id,
                                  trigger=event.data.trigger, date=day, captured_at=event.data.captured_at,
                                  code_version=version)
        atomic_write_text(observation_path(ws, day, key), observation.model_dump_json())


@pytest.fixture
def observed(workspace, monkeypatch):
    """Three days with one event each, all observed; folder changes count as old at once."""
    monkeypatch.setattr(intake, "RACY_SECONDS", 0.0)
    for n, day in enumerate(DAYS):
        emit_session_event(workspace, SAMPLES / "pi-api-refactor.jsonl", trigger="shutdown", session_id=f"s{n}",
                           captured_at=datetime.fromisoformat(f"{day}T18:00:00+00:00"), settings=env_settings())
    assert [o.status for o in take_inbox(workspace, settings=env_settings())] == ["accepted"] * 3
    for day in DAYS:
        observe(workspace, day)
    return workspace


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """The days whose events pending_days reads."""
    seen: list[str] = []
    original = intake.needs_observation

    def counting(ws, event, version):
        seen.append(event.day)
        return original(ws, event, version)

    monkeypatch.setattr(intake, "needs_observation", counting)
    return seen


@pytest.mark.slow  # a Dagster instance
def test_settled_days_are_not_read_again_until_their_folders_change(observed, reads):
    instance = dg.DagsterInstance.ephemeral()
    assert pending_days(observed, VERSION, instance, settings=env_settings()) == []
    assert sorted(reads) == list(DAYS)
    reads.clear()
    assert pending_days(observed, VERSION, instance, settings=env_settings()) == []
    assert reads == []

    observation_path(observed, DAYS[1], Inbox(observed).accepted(DAYS[1])[0].data.dedupe_key).unlink()
    assert pending_days(observed, VERSION, instance, settings=env_settings()) == [DAYS[1]]
    assert reads == [DAYS[1]]
    observe(observed, DAYS[1])
    reads.clear()
    assert pending_days(observed, VERSION, instance, settings=env_settings()) == [] and reads == [DAYS[1]]


@pytest.mark.slow  # a Dagster instance
def test_a_new_code_version_makes_every_day_pending(observed, reads):
    instance = dg.DagsterInstance.ephemeral()
    assert pending_days(observed, VERSION, instance, settings=env_settings()) == []
    assert pending_days(observed, "observer-v2", instance, settings=env_settings()) == list(DAYS)


@pytest.mark.slow  # a Dagster instance
def test_a_failed_run_of_a_settled_day_makes_it_pending(observed, reads):
    instance = dg.DagsterInstance.ephemeral()
    assert pending_days(observed, VERSION, instance, settings=env_settings()) == []

    @dg.op
    def boom():
        raise RuntimeError("the step failed")

    failing = dg.GraphDefinition(name="ingest_job", node_defs=[boom]).to_job()  # a real run's job name and tag
    run = failing.execute_in_process(instance=instance, raise_on_error=False, tags={"dagster/partition": DAYS[0]})
    assert not run.success
    reads.clear()
    assert pending_days(observed, VERSION, instance, settings=env_settings()) == [DAYS[0]]
    assert reads == [DAYS[0]]


def test_without_an_instance_nothing_is_cached(observed, reads):
    assert pending_days(observed, VERSION, settings=env_settings()) == []
    assert pending_days(observed, VERSION, settings=env_settings()) == []
    assert len(reads) == 2 * len(DAYS)
    assert not (observed.state / "intake-settled.json").exists()


@pytest.mark.slow  # a Dagster instance
def test_the_instance_is_opened_only_when_a_day_or_a_run_changed(observed, reads):
    """`status` hands pending_days a way to open the instance: a settled history with no run since
    the last check is answered without it; a failed run since then opens it and is found."""
    import time

    from memory_pipeline.flows.runs import get_instance

    instance = get_instance(observed, Settings.from_env())  # the workspace's instance exists, as after any ingest
    time.sleep(0.05)
    opened: list[int] = []

    def open_instance():
        opened.append(1)
        return instance

    assert pending_days(observed, VERSION, open_instance=open_instance, settings=Settings.from_env()) == []
    assert opened  # nothing settled yet: every day's last run is looked up
    opened.clear()
    assert pending_days(observed, VERSION, open_instance=open_instance, settings=Settings.from_env()) == []
    assert opened == []

    @dg.op
    def boom():
        raise RuntimeError("the step failed")

    failing = dg.GraphDefinition(name="ingest_job", node_defs=[boom]).to_job()
    assert not failing.execute_in_process(instance=instance, raise_on_error=False,
                                          tags={"dagster/partition": DAYS[0]}).success
    assert pending_days(observed, VERSION, open_instance=open_instance, settings=Settings.from_env()) == [DAYS[0]]
    assert opened
