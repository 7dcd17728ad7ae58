"""`ingest` holds the workspace's Edge shard across its days' runs: the index steps of every day use
the one open store (an open at 1M points takes 1.5 s and drops the shard's files from the page cache)."""

from __future__ import annotations

from datetime import datetime, timezone

from memory_pipeline.config import Settings
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.intake.ingest import ingest
from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.resources.vectors.stores import workspace_store
from memory_pipeline_tests.support.dagster_defs import definitions
from memory_pipeline_tests.support.paths import SAMPLES
from memory_pipeline_tests.support.doors import env_settings


def test_ingest_of_two_days_opens_the_shard_once(workspace, monkeypatch):
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    for day, sample in ((1, "pi-api-refactor.jsonl"), (2, "codex-ci-fix.jsonl")):
        emit_session_event(workspace, SAMPLES / sample, trigger="shutdown",
                           captured_at=datetime(2026, 11, day, 12, 0, tzinfo=timezone.utc), settings=env_settings())
    opened: list[str] = []
    real_open = EdgeStore._open

    def counted(self):
        opened.append(str(self.path))
        return real_open(self)

    monkeypatch.setattr(EdgeStore, "_open", counted)
    report = ingest(workspace, definitions(), Settings.from_env())
    assert [d.day for d in report.days] == ["2026-11-01", "2026-11-02"] and report.success
    assert len(opened) == 1  # both days' message and observation indexes: one open
    store = workspace_store(workspace.state, None, dimension=384)
    assert not store.held  # let go when the command ended: a new opener gets it at once
    for day in ("2026-11-01", "2026-11-02"):
        assert store.count({"tier": "messages", "date_gte": day, "date_lte": day}) > 0
