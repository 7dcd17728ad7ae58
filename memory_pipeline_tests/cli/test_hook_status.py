"""The hook decision log and its summary in `memory-pipeline status`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from memory_pipeline.flows.status import hook_decisions
from memory_pipeline.resources.files.hook_state import hooks_dir, log_decision, read_decisions
from memory_pipeline.resources.workspace import Workspace

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def test_decisions_are_counted_over_the_last_seven_days(tmp_path: Path):
    workspace = Workspace(tmp_path / "ws")
    for days_ago, decision in [(0, "warm"), (1, "hot"), (2, "checkpoint"), (3, "inject"), (3, "inject"),
                               (6, "inject_skipped"), (8, "emitted"), (30, "skipped")]:
        log_decision(workspace, decision, at=NOW - timedelta(days=days_ago), session_id="s", hook="Test")
    with (hooks_dir(workspace) / "telemetry.jsonl").open("a") as handle:
        handle.write('{"decision": "warm", "at": "not a time"}\n{"torn line\n')
    assert len(list(read_decisions(workspace))) == 9  # the torn line is skipped
    assert hook_decisions(workspace, now=NOW) == {
        "checkpoint": 1, "hot": 1, "inject": 2, "inject_skipped": 1, "warm": 1}
    assert (hooks_dir(workspace) / "telemetry.jsonl").stat().st_mode & 0o777 == 0o600
