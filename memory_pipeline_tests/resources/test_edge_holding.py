"""An index step holds the Edge shard across its chunks and tiers (one open), and lets it go while it
embeds whenever another process waits for the shard."""

from __future__ import annotations

import os
import random
import subprocess
import threading
import time
from pathlib import Path

import pytest

from memory_pipeline.flows.index import observations as index
from memory_pipeline.flows.index.observations import index_day
from memory_pipeline.models import stable_id
from memory_pipeline.resources.vectors import edge_store
from memory_pipeline.resources.vectors.edge_shard import wanted_by
from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.resources.vectors.vector_store import StorePoint
from memory_pipeline_tests.resources.test_vector_store import DIM, run_python

DAY = "2026-11-16"


class Embedder:
    """Deterministic vectors of the store's size; `before(n)` runs before the n-th encode (from 0)."""

    dimension = DIM

    def __init__(self, before=None) -> None:
        self.calls, self.before = 0, before

    def encode(self, texts: list[str]) -> list[list[float]]:
        if self.before is not None:
            self.before(self.calls)
        self.calls += 1
        return [[random.Random(t).uniform(-1, 1) for _ in range(DIM)] for t in texts]


def points(tier: str, count: int) -> list[StorePoint]:
    return [StorePoint(id=stable_id(tier, str(n)), text=f"{tier} note {n}: the step {n} of the deploy",
                       payload={"tier": tier, "date": DAY, "project": "p", "scope": "project"})
            for n in range(count)]


@pytest.fixture
def opens(monkeypatch) -> list[Path]:
    """The shard's opens (EdgeStore._open), with index chunks of 4 points."""
    monkeypatch.setattr(index, "EMBED_CHUNK", 4)
    seen: list[Path] = []
    real_open = EdgeStore._open

    def counted(self):
        seen.append(self.path)
        return real_open(self)

    monkeypatch.setattr(EdgeStore, "_open", counted)
    return seen


def test_an_index_step_opens_the_shard_once_for_all_its_chunks_and_tiers(tmp_path: Path, opens):
    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    index_day(store, Embedder(), DAY, "messages", points("messages", 10))
    assert len(opens) == 4  # per session: three chunks and one more
    opens.clear()
    with store.holding():
        first = index_day(store, Embedder(), DAY, "messages", points("messages", 13))
        second = index_day(store, Embedder(), DAY, "passages", points("passages", 9))
        assert store.held
    assert len(opens) == 1 and not store.held  # let go at the end of the step
    assert (first.embedded, second.embedded, second.stored) == (3, 9, 9)
    assert store.count({"date": DAY}) == 22  # the held sessions' writes were flushed: a new opener sees them
    assert EdgeStore(tmp_path / "vectors", dimension=DIM).count({"tier": "passages"}) == 9
    other_day = [p.model_copy(update={"id": stable_id("late", p.id), "payload": {**p.payload, "date": "2026-11-17"}})
                 for p in points("messages", 2)]
    index_day(store, Embedder(), "2026-11-17", "messages", other_day)
    again = index_day(store, Embedder(), DAY, "messages", points("messages", 10))  # no manifest: the day's
    assert (again.deleted, again.stored) == (3, 10)  # points found in the shard by its date index, the next day's kept
    assert store.count({"tier": "messages"}) == 12


COUNT = """
import sys, time
from pathlib import Path
from memory_pipeline.resources.vectors.edge_store import EdgeStore
started = time.monotonic()
count = EdgeStore(Path(sys.argv[1]), dimension=8, lock_timeout=30).count()
print(count, round(time.monotonic() - started, 2), flush=True)
"""


def test_a_holding_step_lets_go_while_it_embeds_when_another_process_waits(tmp_path: Path, opens, monkeypatch):
    monkeypatch.setattr(edge_store, "WATCH_EVERY", 0.05)
    path = tmp_path / "vectors"
    store = EdgeStore(path, dimension=DIM, lock_timeout=30)
    answers: list[str] = []
    waited = threading.Event()

    def other_reader(call: int) -> None:  # while the second chunk is embedded, the first one written
        if call == 1:
            assert store.held
            reader = run_python(COUNT, str(path), stdout=subprocess.PIPE)
            try:
                answers.append(reader.communicate(timeout=60)[0].strip())
            finally:
                reader.kill()
            waited.set()

    with store.holding():
        stats = index_day(store, Embedder(before=other_reader), DAY, "messages", points("messages", 10))
    assert waited.is_set() and answers and answers[0].split()[0] == "4"  # the first chunk, flushed
    assert wanted_by(path).split()[0] != str(os.getpid())  # the reader's ask, not this process's
    assert len(opens) == 2  # held again after the reader, once
    assert (stats.embedded, stats.stored) == (10, 10) and store.count() == 10


HOLD = """
import sys, time
from pathlib import Path
from memory_pipeline.resources.vectors.edge_store import EdgeStore
with EdgeStore(Path(sys.argv[1]), dimension=8, lock_timeout=30).session():
    print("holding", flush=True)
    time.sleep(1.5)
"""


def test_a_step_waiting_to_hold_the_shard_again_does_not_let_itself_go(tmp_path: Path, opens, monkeypatch):
    """The step's own wait writes the want file too; its watcher does not take that for another opener's."""
    monkeypatch.setattr(edge_store, "WATCH_EVERY", 0.05)
    path = tmp_path / "vectors"
    store = EdgeStore(path, dimension=DIM, lock_timeout=30)
    writers: list[subprocess.Popen] = []

    def another_opener(call: int) -> None:
        if call == 1:  # it gets the shard while this chunk is embedded and keeps it 1.5 s: the step waits
            writers.append(run_python(HOLD, str(path), stdout=subprocess.PIPE))
            assert writers[0].stdout.readline().strip() == "holding"
        if call == 2:  # time for a watcher that took the step's own wait for another's to let go
            time.sleep(0.5)

    try:
        with store.holding():
            index_day(store, Embedder(before=another_opener), DAY, "messages", points("messages", 10))
            assert store.held
        assert writers[0].wait(timeout=30) == 0
    finally:
        for writer in writers:
            writer.kill()
    assert wanted_by(path).split()[0] == str(os.getpid())  # the step's own wait was the last ask
    assert store.count() == 10 and len(opens) == 3  # held again once after the other opener; then the count
