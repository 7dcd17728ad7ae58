"""A new user's history on the default path (no MEMORY_PARTITIONS_START): sessions from 14 months
ago to yesterday are imported, observed, reflected, and held by the Dagster partitions."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

import pytest

from memory_pipeline.config import Settings
from memory_pipeline_tests.cli.hook_helpers import hook_env, run_cli
from memory_pipeline_tests.support.friction_sessions import claude_session

pytestmark = pytest.mark.slow

AGES = (425, 270, 120, 1)  # days before today: 14 months, 9 months, 4 months, yesterday


def history(folder: Path) -> dict[str, Path]:
    """One Claude Code session per age, six user turns each (observed), in a project of its own."""
    folder.mkdir()
    sessions = {}
    for age in AGES:
        day = (date.today() - timedelta(days=age)).isoformat()
        turns = [("user", f"Session of {day}: decided to keep the cache on port {6000 + age} for the ledger")] + [
            ("user", f"Step {n}: rename the module storage{age} and run the tests again") for n in range(5)]
        sessions[day] = claude_session(folder / f"s{age}.jsonl", f"session-{age}", "/home/dev/src/ledger", day, turns)
    return sessions


def cli_json(args: list[str], env: dict[str, str]) -> dict:
    done = run_cli([*args, "--json"], env, timeout=600)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    assert b"Traceback" not in done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def env(tmp_path: Path):
    """The default environment (no MEMORY_PARTITIONS_START) on a fresh workspace, stopped after."""
    env = hook_env(tmp_path / "workspace", DAGSTER_HOME=str(tmp_path / "dagster"))
    env.pop("MEMORY_PARTITIONS_START")
    yield env
    run_cli(["stop"], env)


def test_history_of_any_age_is_imported_observed_reflected_and_partitioned(tmp_path: Path, env, monkeypatch):
    ws = tmp_path / "workspace"
    sessions = history(tmp_path / "history")
    days = sorted(sessions)

    imported = cli_json(["import", str(tmp_path / "history")], env)
    assert (imported["imported"], imported["failed"], imported["days"]) == (4, 0, days)
    assert (ws / "state" / "partitions-start.txt").read_text() == days[0] + "\n"

    ingested = cli_json(["ingest"], env)
    assert [d["day"] for d in ingested["days"]] == days and ingested["success"]
    assert all(d["observations"] == 1 for d in ingested["days"])

    reflected = cli_json(["reflect", "--backfill"], env)
    assert [d["day"] for d in reflected["days"]] == days and reflected["outside_partitions"] == []
    assert all(d["success"] and d["observations"] >= 1 for d in reflected["days"])

    status = cli_json(["status"], env)
    assert (status["partitions_start"], status["quarantined"], status["pending_days"]) == (days[0], 0, [])

    monkeypatch.delenv("MEMORY_PARTITIONS_START")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    import dagster as dg

    from memory_pipeline.flows.runs import get_instance
    from memory_pipeline.resources.workspace import Workspace
    from memory_pipeline_tests.support.dagster_defs import definitions

    keys = definitions().resolve_job_def("ingest_job").partitions_def.get_partition_keys()
    assert keys[0] == days[0] and set(days) <= set(keys)
    instance = get_instance(Workspace(ws), Settings.from_env())
    for asset in ("observations", "reflections"):
        assert set(days) <= instance.get_materialized_partitions(dg.AssetKey(asset)), asset


def test_a_day_outside_the_partitions_is_a_clear_line_not_a_traceback(env):
    old = (date.today() - timedelta(days=400)).isoformat()
    for args in (["ingest", "--date", old], ["reflect", "--date", old], ["maintain", "--since", old]):
        done = run_cli(args, env, timeout=300)
        assert done.returncode != 0 and b"Traceback" not in done.stderr + done.stdout, args
        assert f"{old} is not a daily partition".encode() in done.stderr + done.stdout, args
