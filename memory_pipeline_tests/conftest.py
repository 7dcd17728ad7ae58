"""Shared test fixtures: paths to ../shared, a fresh workspace, HF offline."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

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
