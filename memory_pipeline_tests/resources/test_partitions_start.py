"""The partitions' first day: recent on first use, kept in the workspace, moved back (never forward)
to the oldest session imported; MEMORY_PARTITIONS_START overrides it."""

from __future__ import annotations

from datetime import timedelta

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.flows.intake.importer import import_transcripts
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources import partitions as partition_days
from memory_pipeline_tests.support.paths import fixture_transcript

PI_SESSION = "pi/before-compaction.jsonl"  # dated 2025-12-09


def test_the_default_first_day_is_recent_and_kept_in_the_workspace(workspace, monkeypatch):
    monkeypatch.delenv("MEMORY_PARTITIONS_START")
    settings = Settings.from_env()
    first = partition_days.partitions_start(settings)
    assert first == (pipeline.local_today(settings) - timedelta(days=90)).isoformat()
    workspace.state_path("partitions_start").write_text("2026-01-05\n")  # as written on an earlier first use
    assert partition_days.partitions_start(settings) == "2026-01-05"
    assert not partition_days.valid_day("2026-01-04", settings) and partition_days.valid_day("2026-01-05", settings)
    monkeypatch.setenv("MEMORY_PARTITIONS_START", "2024-03-01")
    assert partition_days.partitions_start(Settings.from_env()) == "2024-03-01"


def test_the_first_day_only_moves_back(workspace):
    assert workspace.reach_back("2026-03-01") == "2026-03-01"
    assert workspace.reach_back("2026-05-01") == "2026-03-01"
    assert workspace.reach_back("2025-02-01") == "2025-02-01"
    assert workspace.first_day("2026-09-01") == "2025-02-01"
    assert workspace.state_path("partitions_start").read_text() == "2025-02-01\n"


def test_an_import_of_older_history_moves_the_first_day_back(workspace, monkeypatch):
    monkeypatch.delenv("MEMORY_PARTITIONS_START")
    settings = Settings.from_env()
    assert partition_days.partitions_start(settings) > "2025-12-09"  # 90 days before today
    report = import_transcripts(workspace, [fixture_transcript(PI_SESSION)], Settings.from_env())
    assert report.days == ["2025-12-09"] and report.counts["failed"] == 0
    assert partition_days.partitions_start(settings) == "2025-12-09"
    assert workspace.state_path("partitions_start").read_text() == "2025-12-09\n"
    assert partition_days.valid_day("2025-12-09", settings)


def test_events_older_than_the_kept_first_day_move_it_back(workspace, monkeypatch):
    """A workspace whose events predate its kept first day (imported under MEMORY_PARTITIONS_START,
    which was then unset) is read with the partitions reaching back to them."""
    import_transcripts(workspace, [fixture_transcript(PI_SESSION)], Settings.from_env())  # under the suite's 2023-01-01
    workspace.state_path("partitions_start").write_text("2026-08-01\n")
    monkeypatch.delenv("MEMORY_PARTITIONS_START")
    assert partition_days.partitions_start(Settings.from_env()) == "2025-12-09"


def test_a_refused_import_heals_by_importing_again(workspace, monkeypatch):
    monkeypatch.setenv("MEMORY_PARTITIONS_START", "2026-01-01")
    [item] = import_transcripts(workspace, [fixture_transcript(PI_SESSION)], Settings.from_env()).items
    assert item.status == "failed" and "before MEMORY_PARTITIONS_START=2026-01-01: unset it" in item.reason
    assert len(Inbox(workspace).quarantined()) == 1
    monkeypatch.delenv("MEMORY_PARTITIONS_START")
    [again] = import_transcripts(workspace, [fixture_transcript(PI_SESSION)], Settings.from_env()).items
    assert (again.status, again.day) == ("imported", "2025-12-09")
    assert Inbox(workspace).quarantined() == [] and list(workspace.quarantine.iterdir()) == []
