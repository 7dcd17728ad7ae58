"""Schedules missed while the machine was off run once when the daemon is back: the scheduler the
daemon runs (Dagster's), evaluated with a clock set by the test against the workspace's instance."""

from __future__ import annotations

import logging
import os
import signal
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memory_pipeline.config import Settings
from memory_pipeline.flows.runs import get_instance
from memory_pipeline.resources.processes import children_of, terminate
from memory_pipeline.resources.workspace import Workspace

pytestmark = pytest.mark.slow

DAILY = {"reflect_schedule", "maintenance_schedule", "friction_schedule", "recall_pack_schedule"}


def evaluate_schedules(context, at: datetime) -> None:
    from dagster._scheduler.scheduler import launch_scheduled_runs

    for _ in launch_scheduled_runs(context, logging.getLogger("catchup-test"), at, {}):
        pass


def runs_by_schedule(instance) -> Counter:
    return Counter(run.tags.get("dagster/schedule_name") for run in instance.get_runs())


def test_a_schedule_missed_for_three_days_runs_once_when_the_daemon_is_back(tmp_path: Path, monkeypatch):
    from dagster._core.workspace.context import WorkspaceProcessContext
    from dagster._core.workspace.load_target import ModuleTarget

    monkeypatch.setenv("MEMORY_WORKSPACE", str(tmp_path / "ws"))
    monkeypatch.setenv("MEMORY_TIMEZONE", "UTC")
    settings = Settings.from_env()
    workspace = Workspace(settings.workspace).create()
    instance = get_instance(workspace, settings)
    target = ModuleTarget(module_name="memory_pipeline.definitions", attribute=None, working_directory=None,
                          location_name=None)
    with instance, WorkspaceProcessContext(instance, workspace_load_target=target) as context:
        evaluate_schedules(context, datetime(2026, 11, 10, 12, 0, tzinfo=timezone.utc))  # Tuesday noon: last seen
        assert runs_by_schedule(instance) == Counter()
        # off from Tuesday noon to Friday 09:00: each daily schedule missed three ticks
        evaluate_schedules(context, datetime(2026, 11, 13, 9, 0, tzinfo=timezone.utc))
        ran = runs_by_schedule(instance)
        assert {name: ran[name] for name in DAILY} == {name: 1 for name in DAILY}
        assert set(ran) == DAILY  # no Sunday passed: the weekly ones wait
        days = {run.tags["dagster/schedule_name"]: run.tags.get("dagster/partition") for run in instance.get_runs()}
        assert days["reflect_schedule"] == "2026-11-12" and days["recall_pack_schedule"] == "2026-11-13"
        # the same hour again: nothing new (each tick once)
        evaluate_schedules(context, datetime(2026, 11, 13, 9, 5, tzinfo=timezone.utc))
        assert runs_by_schedule(instance) == ran
        code_servers = children_of(os.getpid())
    for pid in code_servers:  # the code server stops on its own once the context closes; wait for it
        terminate(pid, (None, signal.SIGTERM, signal.SIGKILL), grace=30.0)
