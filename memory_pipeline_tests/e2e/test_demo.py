"""The README's main job, end to end in a subprocess, and the documented Dagster CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def test_demo_runs_end_to_end_on_embedded_defaults(workspace):
    env = {**os.environ}
    env.pop("ANTHROPIC_API_KEY", None)
    result = subprocess.run([sys.executable, "-m", "memory_pipeline.cli", "demo"], capture_output=True, text=True,
                            env=env, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "succeeded" in result.stdout and "memory-pipeline service ui" in result.stdout and "dagster dev" not in result.stdout
    assert "for 2026-11-20 (2 events)" in result.stdout and "for 2026-11-21 (2 events)" in result.stdout
    logs = sorted(p.name for p in (workspace.root / "memory").glob("*.md"))
    assert logs == ["2026-11-20.md", "2026-11-21.md"]
    observations = list((workspace.root / "observations").glob("*/*.json"))
    assert len(observations) == 4  # three sessions, one of them also compacted
    compacted = [json.loads(p.read_text()) for p in workspace.observations_dir("2026-11-20").glob("*.json")]
    facts = {o["trigger"]: " ".join(f["text"] for s in o["segments"] for f in s["facts"]) for o in compacted}
    assert sorted(facts) == ["compaction", "shutdown"]  # two windows of one session, not one window twice
    assert "one pool per process" in facts["compaction"] and "one pool per process" not in facts["shutdown"]
    assert "BlockingConnectionPool" in facts["shutdown"] and "BlockingConnectionPool" not in facts["compaction"]
    for path in workspace.root.rglob("*"):
        if path.is_file() and path.suffix in {".md", ".json", ".jsonl"}:
            text = path.read_text(encoding="utf-8", errors="replace")
            assert "hunter2" not in text and "sk-ant-api03" not in text, path
    rerun = subprocess.run([sys.executable, "-m", "memory_pipeline.cli", "demo"], capture_output=True, text=True,
                           env=env, timeout=600)
    assert rerun.returncode == 0
    assert len(list((workspace.root / "observations").glob("*/*.json"))) == 4


def test_dagster_cli_materializes_a_partition_from_the_environment(workspace):
    from memory_pipeline.flows.emit import emit_session_event
    from memory_pipeline.flows.intake import take_inbox
    from memory_pipeline_tests.support.paths import SAMPLES

    emit_session_event(workspace, SAMPLES / "codex-ci-fix.jsonl", trigger="shutdown", use_transcript_time=True)
    take_inbox(workspace)
    dagster = Path(sys.executable).parent / "dagster"
    result = subprocess.run([str(dagster), "asset", "materialize", "-m", "memory_pipeline.definitions",
                             "--select", "sessions,observations", "--partition", "2026-11-21"],
                            capture_output=True, text=True, timeout=300, env={**os.environ})
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(list(workspace.observations_dir("2026-11-21").glob("*.json"))) == 1
