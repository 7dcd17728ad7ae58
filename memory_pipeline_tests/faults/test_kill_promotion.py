"""kill -9 of `memory-pipeline review approve` between writing MEMORY.md and marking the
proposals promoted; `review sync` afterwards must leave what a clean approval leaves."""

from __future__ import annotations

import random

import dagster as dg
import pytest

from memory_pipeline.config import Settings
from memory_pipeline.defs.resources import build_resources
from memory_pipeline.defs.review import TODAY_TAG
from memory_pipeline.pipeline import local_today
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.resources.redis.proposals import ProposalStore
from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis
from memory_pipeline.stages.review.memory_md import promoted_ids
from memory_pipeline_tests.faults.compare import assert_same_state, read_state
from memory_pipeline_tests.faults.harness import (
    ingest_here,
    kill9,
    pause_env,
    run_cli,
    start_cli,
    using_workspace,
    wait_for_file,
)
from memory_pipeline_tests.support.dagster_defs import assets
from memory_pipeline_tests.support.paths import SAMPLES
from memory_pipeline_tests.support.doors import redis_limits, env_settings

pytestmark = pytest.mark.slow
DAY = "2026-11-20"  # the samples' day
EARLIER = "# MEMORY\n\n## Hard Rules\n\n- Never force-push main.\n"


def same_draws(monkeypatch) -> None:
    """The ids' random parts drawn from one seed, so the clean and the killed workspace stage the same ids."""
    from memory_pipeline.resources.redis import proposals

    monkeypatch.setattr(proposals, "secrets", random.Random(20261120))


def staged(ws, monkeypatch) -> list[str]:
    """Ingest the samples, reflect and stage proposals; returns the pending ids."""
    same_draws(monkeypatch)
    ws.memory_md.write_text(EARLIER)
    for path in sorted(SAMPLES.glob("*.jsonl")):
        emit_session_event(ws, path, trigger="shutdown", use_transcript_time=True, settings=env_settings())
    assert ingest_here(ws).success
    with using_workspace(ws):
        settings = Settings.from_env()
        # staged today: `review approve` runs on the real clock, and a proposal staged on DAY expired 7 days later
        result = dg.materialize(assets("reflections", "proposals"), partition_key=DAY, resources=build_resources(settings),
                                tags={TODAY_TAG: local_today(settings).isoformat()})
        assert result.success
        return [p.id for p in ProposalStore(RedisStore(connect_redis(None, ws.state, *redis_limits()))).pending()]


def statuses(ws) -> dict[str, tuple[str, bool]]:
    with using_workspace(ws):
        found = ProposalStore(RedisStore(connect_redis(None, ws.state, *redis_limits()))).all()
    return {pid: (p.status, p.promoted) for pid, p in found.items()}


def test_kill_9_during_promotion_then_sync_equals_a_clean_approval(workspaces, tmp_path, monkeypatch):
    clean, killed = workspaces.new("clean"), workspaces.new("killed")
    ids = staged(clean, monkeypatch)
    assert len(ids) >= 3 and staged(killed, monkeypatch) == ids
    chosen = ids[:3]
    done = run_cli(clean, "review", "approve", *chosen)
    assert done.returncode == 0, done.stderr

    flag = tmp_path / "paused.flag"
    proc = start_cli(killed, "review", "approve", *chosen, **pause_env("promote:after-memory-write", flag))
    wait_for_file(flag, proc)
    kill9(proc)
    assert promoted_ids(killed.memory_md.read_text()) == set(chosen)  # written, not yet marked promoted
    assert {statuses(killed)[pid] for pid in chosen} == {("approved", False)}

    again = run_cli(killed, "review", "sync")
    assert again.returncode == 0, again.stderr
    assert statuses(killed) == statuses(clean)
    assert killed.memory_md.read_text().count("<!-- p-") == len(chosen)
    with using_workspace(clean):
        expected = read_state(clean)
    with using_workspace(killed):
        assert_same_state(read_state(killed), expected)


def test_kill_9_after_the_status_change_then_a_rerun_writes_the_missing_audit_lines(workspaces, tmp_path, monkeypatch):
    from memory_pipeline.resources.files.daily_log import DailyLog

    ws = workspaces.new("audit")
    ids = staged(ws, monkeypatch)
    chosen = ids[:2]
    flag = tmp_path / "paused.flag"
    proc = start_cli(ws, "review", "approve", *chosen, **pause_env("review:before-log", flag))
    wait_for_file(flag, proc)
    kill9(proc)
    assert {statuses(ws)[pid][0] for pid in chosen} == {"approved"}
    decided = ProposalStore(RedisStore(connect_redis(None, ws.state, *redis_limits()))).get(chosen[0]).decided
    assert all(f"approved `{pid}`" not in DailyLog(ws).read(decided) for pid in chosen)  # the lines were lost

    again = run_cli(ws, "review", "approve", *chosen)
    assert again.returncode == 0, again.stderr
    assert "already approved" in again.stdout + again.stderr
    log = DailyLog(ws).read(decided)
    assert all(log.count(f"approved `{pid}`") == 1 for pid in chosen), log
    assert promoted_ids(ws.memory_md.read_text()) >= set(chosen)
    assert run_cli(ws, "review", "sync").returncode == 0 and DailyLog(ws).read(decided) == log  # repaired once
