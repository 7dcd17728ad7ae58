"""The partitions' first day: recent by default, fixed per workspace, overridable; an import of
older history explains what to set."""

from __future__ import annotations

from datetime import timedelta

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.flows.importer import import_transcripts
from memory_pipeline.resources import partitions
from memory_pipeline_tests.support.paths import fixture_transcript


def test_the_default_first_day_is_recent_and_fixed_in_the_workspace(workspace, monkeypatch):
    monkeypatch.delenv("MEMORY_PARTITIONS_START")
    settings = Settings.from_env()
    first = partitions.partitions_start(settings)
    assert first == (pipeline.local_today(settings) - timedelta(days=90)).isoformat()
    workspace.state_path("partitions_start").write_text("2026-01-05\n")  # as written on an earlier first use
    assert partitions.partitions_start(settings) == "2026-01-05"
    assert not partitions.valid_day("2026-01-04", settings) and partitions.valid_day("2026-01-05", settings)
    monkeypatch.setenv("MEMORY_PARTITIONS_START", "2024-03-01")
    assert partitions.partitions_start(Settings.from_env()) == "2024-03-01"


def test_importing_history_older_than_the_first_day_says_what_to_set(workspace, monkeypatch):
    monkeypatch.delenv("MEMORY_PARTITIONS_START")
    report = import_transcripts(workspace, [fixture_transcript("pi/before-compaction.jsonl")])
    [item] = report.items
    assert item.status == "failed" and "MEMORY_PARTITIONS_START=2025-12-09" in item.reason
    monkeypatch.setenv("MEMORY_PARTITIONS_START", "2025-12-09")
    assert import_transcripts(workspace, [fixture_transcript("pi/before-compaction.jsonl")]).days == ["2025-12-09"]
