"""Shared test fixtures: paths to ../shared, a fresh workspace, HF offline."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# The shared fixtures are dated back to 2025 (the default first day is 90 days back); the tests of
# the default unset it.
os.environ.setdefault("MEMORY_PARTITIONS_START", "2023-01-01")

pytest_plugins = ["memory_pipeline_tests.support.plugin"]

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    return (PROJECT_ROOT / ".." / "shared").resolve()


def fixture_transcript(relative: str) -> Path:
    """A real transcript from ../shared/fixtures/transcripts, or skip the test clearly."""
    path = shared_dir() / "fixtures" / "transcripts" / relative
    if not path.exists():
        pytest.skip(f"shared fixture missing: {path} (clone ../shared beside the project)")
    return path


@pytest.fixture
def workspace_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "workspace"
    monkeypatch.setenv("MEMORY_WORKSPACE", str(root))
    return root


SAMPLES = PROJECT_ROOT / "memory_pipeline" / "samples"


@pytest.fixture
def workspace(workspace_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A fresh workspace with its own Dagster home; its embedded redis-server is stopped after."""
    from memory_pipeline.resources.embedded_redis import EmbeddedRedis
    from memory_pipeline.resources.workspace import Workspace

    (tmp_path / "dagster").mkdir(exist_ok=True)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("MEMORY_LLM_PROVIDER", raising=False)
    ws = Workspace(workspace_dir).create()
    yield ws
    EmbeddedRedis(ws.state).stop()
