"""The vector store lost or damaged after an ingest: the next `ingest` finds it at open, rebuilds what is
missing from the sessions and observations on disk, and says so (its report, `state/dagster-output.log`).
Before: `ingest` said ok (nothing pending) while the shard held none of the earlier days' points, so
recall of them returned nothing; only `ingest --date`, day by day, brought them back."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.faults.compare import assert_same_state, point_ids, read_state
from memory_pipeline_tests.faults.harness import DAYS, emit_inputs, ingest_here, using_workspace

pytestmark = pytest.mark.slow


def shard_parts(ws: Workspace) -> list[Path]:
    shard = ws.state_path("vectors")
    return [shard, shard.with_name("vectors.payloads.sqlite"), shard.with_name("vectors.bm25.json")]


def lose_everything(ws: Workspace) -> None:
    for part in shard_parts(ws):
        shutil.rmtree(part) if part.is_dir() else part.unlink(missing_ok=True)
    for suffix in ("-wal", "-shm"):
        Path(f"{shard_parts(ws)[1]}{suffix}").unlink(missing_ok=True)


def garble_the_shard(ws: Workspace) -> None:
    """Every file of the shard overwritten with noise from its start (its pages unreadable)."""
    for path in sorted(p for p in ws.state_path("vectors").rglob("*") if p.is_file() and p.stat().st_size):
        with path.open("r+b") as handle:
            handle.write(os.urandom(min(path.stat().st_size, 1 << 16)))


def garble_the_table(ws: Workspace) -> None:
    """The payload table's pages after its header overwritten: SQLite still opens it."""
    table = shard_parts(ws)[1]
    size = table.stat().st_size
    with table.open("r+b") as handle:
        handle.seek(4096)
        handle.write(os.urandom(max(0, size - 4096)))


def lose_the_table(ws: Workspace) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{shard_parts(ws)[1]}{suffix}").unlink(missing_ok=True)


def lose_a_days_points(ws: Workspace) -> None:
    """A day's message points gone from a shard that opens fine (a damaged page the engine skips)."""
    with using_workspace(ws):
        store = EdgeStore(ws.state_path("vectors"), dimension=384, lock_timeout=30)
        gone = [p.id for p in store.scroll_all(payload_filter={"tier": "messages", "date": DAYS[0]})]
        assert gone
        store.delete(gone)


DAMAGE = {"lost": lose_everything, "shard-garbled": garble_the_shard, "table-garbled": garble_the_table,
          "table-lost": lose_the_table, "points-lost": lose_a_days_points}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_lost_or_damaged_store_is_rebuilt_from_the_files_on_disk(damage, workspaces, small_inputs, clean_small):
    ws = workspaces.new(f"store-{damage}")
    emit_inputs(ws, small_inputs)
    assert ingest_here(ws).success
    DAMAGE[damage](ws)

    report = ingest_here(ws)

    assert report.success and report.days == [], report.as_dict()  # nothing pending: no Observer run
    with using_workspace(ws):
        assert point_ids(ws) == clean_small.point_ids
        store = EdgeStore(ws.state_path("vectors"), dimension=384, lock_timeout=30)
        assert all(p.text for p in store.scroll_all())  # each point's whole payload, its text included
        assert_same_state(read_state(ws), clean_small)
    assert report.store and report.store.startswith("vector store: ") and "rebuilt" in report.store, report.store
    assert DAYS[0] in report.store
    log = ws.state_path("dagster_output").read_text(encoding="utf-8")
    assert report.store in log
    if damage in ("shard-garbled", "table-garbled"):  # kept aside, not deleted
        assert list(ws.state.glob("vectors.damaged-*/*")), sorted(p.name for p in ws.state.iterdir())
    again = ingest_here(ws)
    assert again.success and again.store is None  # whole now: nothing to say


@pytest.mark.parametrize("damage", ["lost", "points-lost"])
def test_the_nightly_maintenance_the_daemon_runs_rebuilds_a_lost_store(damage, workspaces, small_inputs, clean_small):
    """With the always-on daemon nobody types `ingest`: the nightly maintenance run checks the store too."""
    import dagster as dg

    from memory_pipeline.config import Settings
    from memory_pipeline.flows.runs import get_instance, run_job_for_days
    from memory_pipeline_tests.support.dagster_defs import definitions

    ws = workspaces.new(f"nightly-{damage}")
    emit_inputs(ws, small_inputs)
    assert ingest_here(ws).success
    DAMAGE[damage](ws)

    with using_workspace(ws):
        settings = Settings.from_env()
        [run] = run_job_for_days(definitions(), "maintenance_job", [DAYS[0]], get_instance(ws, settings))
        assert run.success, run.error
        assert point_ids(ws) == clean_small.point_ids
        [event] = get_instance(ws, settings).get_latest_materialization_events(
            [dg.AssetKey("maintenance")]).values()
    said = event.asset_materialization.metadata["vector_store"].value
    assert said.startswith("vector store: ") and "rebuilt" in said and DAYS[0] in said, said
    assert "maintenance: vector store check" in ws.state_path("dagster_output").read_text(encoding="utf-8")
