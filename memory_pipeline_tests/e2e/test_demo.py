"""The README's main job, end to end in a subprocess, and the documented Dagster CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from memory_pipeline_tests.support.doors import env_settings

pytestmark = pytest.mark.slow


def tree(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_size for p in sorted(root.rglob("*")) if p.is_file()}


def test_demo_runs_in_its_own_workspace_offline_and_leaves_the_users_untouched(tmp_path: Path):
    """A fresh HOME with an Anthropic key that does not answer: the demo runs offline in
    ~/.memory-pipeline/demo and says so; the user's workspace is not touched."""
    from memory_pipeline.resources.daemons.services import stop_workspace_services
    from memory_pipeline.resources.workspace import Workspace
    from memory_pipeline_tests.support.leaks import leftover_services

    home = tmp_path / "home"
    users = Workspace(home / ".memory-pipeline" / "workspace").create()
    (users.root / "MEMORY.md").write_text("# my own memory\n")
    before = tree(users.root)
    env = {k: v for k, v in os.environ.items() if k not in ("MEMORY_WORKSPACE", "DAGSTER_HOME", "MEMORY_LLM_PROVIDER")}
    env |= {"HOME": str(home), "ANTHROPIC_API_KEY": "sk-ant-api03-" + "x" * 40, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    demo = Workspace(home / ".memory-pipeline" / "demo")
    try:
        result = subprocess.run([sys.executable, "-m", "memory_pipeline.cli", "demo"], capture_output=True, text=True,
                                env=env, timeout=600)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"demo workspace: {demo.root}" in result.stdout.replace("\n", "")
        assert "succeeded" in result.stdout and "memory-pipeline service ui" in result.stdout and "dagster dev" not in result.stdout
        assert "for 2026-11-20 (2 events)" in result.stdout and "for 2026-11-21 (2 events)" in result.stdout
        assert tree(users.root) == before
        assert leftover_services(tmp_path) == []  # the demo stopped the redis-server its runs started
        logs = sorted(p.name for p in (demo.root / "memory").glob("*.md"))
        assert logs == ["2026-11-20.md", "2026-11-21.md"]
        observations = list((demo.root / "observations").glob("*/*.json"))
        assert len(observations) == 4  # three sessions, one of them also compacted
        assert {json.loads(p.read_text())["model"] for p in observations} == {"offline-extractive-1"}
        compacted = [json.loads(p.read_text()) for p in demo.observations_dir("2026-11-20").glob("*.json")]
        facts = {o["trigger"]: " ".join(f["text"] for s in o["segments"] for f in s["facts"]) for o in compacted}
        assert sorted(facts) == ["compaction", "shutdown"]  # two windows of one session, not one window twice
        assert "one pool per process" in facts["compaction"] and "one pool per process" not in facts["shutdown"]
        assert "BlockingConnectionPool" in facts["shutdown"] and "BlockingConnectionPool" not in facts["compaction"]
        for path in demo.root.rglob("*"):
            if path.is_file() and path.suffix in {".md", ".json", ".jsonl"}:
                text = path.read_text(encoding="utf-8", errors="replace")
                assert "hunter2" not in text and "sk-ant-api03" not in text, path
        rerun = subprocess.run([sys.executable, "-m", "memory_pipeline.cli", "demo"], capture_output=True, text=True,
                               env=env, timeout=600)
        assert rerun.returncode == 0
        assert len(list((demo.root / "observations").glob("*/*.json"))) == 4
        refused = subprocess.run([sys.executable, "-m", "memory_pipeline.cli", "demo", "--workspace", str(users.root)],
                                 capture_output=True, text=True, env=env, timeout=600)
        assert refused.returncode == 2 and "is your workspace" in refused.stderr and tree(users.root) == before
    finally:
        stop_workspace_services(demo, Path(env.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()))


def test_make_demo_installs_only_what_the_main_job_needs():
    root = Path(__file__).resolve().parents[2]
    planned = subprocess.run(["make", "-n", "-C", str(root), "demo", "VENV=/nonexistent-venv"], capture_output=True,
                             text=True, timeout=60)
    assert planned.returncode == 0, planned.stderr
    assert "pip install" in planned.stdout and "memory-pipeline demo" in planned.stdout
    for test_only in ("apt-get", "chromium", "postgresql", "agent_clients", "[test]"):
        assert test_only not in planned.stdout, test_only
    tests = subprocess.run(["make", "-n", "-C", str(root), "test", "VENV=/nonexistent-venv"], capture_output=True,
                           text=True, timeout=60)
    assert "agent_clients" in tests.stdout and "[test]" in tests.stdout  # the tests still install theirs


def test_dagster_cli_materializes_a_partition_from_the_environment(workspace):
    from memory_pipeline.flows.intake.emit import emit_session_event
    from memory_pipeline.flows.intake.inbox import take_inbox
    from memory_pipeline_tests.support.paths import SAMPLES

    emit_session_event(workspace, SAMPLES / "codex-ci-fix.jsonl", trigger="shutdown", use_transcript_time=True, settings=env_settings())
    take_inbox(workspace, settings=env_settings())
    dagster = Path(sys.executable).parent / "dagster"
    result = subprocess.run([str(dagster), "asset", "materialize", "-m", "memory_pipeline.definitions",
                             "--select", "sessions,observations", "--partition", "2026-11-21"],
                            capture_output=True, text=True, timeout=300, env={**os.environ})
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(list(workspace.observations_dir("2026-11-21").glob("*.json"))) == 1
