"""Events delivered twice and out of order; two `ingest` processes at once."""

from __future__ import annotations

import json
import os
import random

import pytest

from memory_pipeline_tests.faults.compare import assert_same_state, read_state
from memory_pipeline_tests.faults.harness import emit_inputs, ingest_here, start_cli, using_workspace, write_inputs

pytestmark = pytest.mark.slow


def deliver(inbox, copies: list[tuple[str, bytes]], prefix: str, rng: random.Random) -> None:
    """Write the event files again under new names, their modification times shuffled."""
    rng.shuffle(copies)
    for n, (name, data) in enumerate(copies):
        path = inbox / f"{prefix}-{name}"
        path.write_bytes(data)
        stamp = 1_700_000_000 + rng.randrange(10_000)
        os.utime(path, (stamp, stamp))


def test_200_events_delivered_twice_and_out_of_order(workspaces, tmp_path):
    inputs = write_inputs(tmp_path / "inputs", 100, turns=2, seed=31)  # small events
    clean = workspaces.new("clean")
    emit_inputs(clean, inputs)
    assert ingest_here(clean).success
    with using_workspace(clean):
        expected = read_state(clean)
    assert len(expected.observations) == 200

    ws, rng = workspaces.new("twice"), random.Random(5)
    files = emit_inputs(ws, inputs)
    copies = [(p.name, p.read_bytes()) for p in files]
    for path in files:  # the first delivery out of order too
        stamp = 1_700_000_000 + rng.randrange(10_000)
        os.utime(path, (stamp, stamp))
    deliver(ws.inbox, list(copies[:100]), "again", rng)
    first = ingest_here(ws)
    assert first.success and (first.accepted, first.duplicates, first.quarantined) == (200, 100, [])
    deliver(ws.inbox, list(copies), "late", rng)
    second = ingest_here(ws)
    assert second.success and (second.accepted, second.duplicates, second.days) == (0, 200, [])
    with using_workspace(ws):
        assert_same_state(read_state(ws), expected)


def test_two_ingest_processes_at_once(workspaces, small_inputs, clean_small):
    ws = workspaces.new("two")
    emit_inputs(ws, small_inputs)
    procs = [start_cli(ws, "ingest", "--json") for _ in range(2)]
    results = [(p.wait(timeout=240), *p.communicate()) for p in procs]
    for code, out, err in results:
        assert code == 0, err[-3000:]
        assert json.loads(out)["success"]
    reports = [json.loads(out) for _, out, _ in results]
    assert sum(r["accepted"] for r in reports) == 20  # each event taken by exactly one process
    with using_workspace(ws):
        assert_same_state(read_state(ws), clean_small)
