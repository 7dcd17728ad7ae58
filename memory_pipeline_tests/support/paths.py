"""Where tests find their inputs: the real transcripts in the repository, the samples, LoCoMo."""

from __future__ import annotations

from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = PROJECT_ROOT / "memory_pipeline_tests" / "fixtures"
TRANSCRIPTS = FIXTURES / "transcripts"  # MIT-licensed real transcripts; see fixtures/README.md
SAMPLES = PROJECT_ROOT / "memory_pipeline" / "samples"


def shared_dir() -> Path:
    """../shared beside the checkout: LoCoMo (non-commercial licence) stays there, never in the repo."""
    return (PROJECT_ROOT / ".." / "shared").resolve()


def fixture_transcript(relative: str) -> Path:
    """A real transcript from memory_pipeline_tests/fixtures/transcripts (in the repository)."""
    path = TRANSCRIPTS / relative
    if not path.exists():
        raise FileNotFoundError(f"test fixture missing from the repository: {path}")
    return path


def locomo_data() -> Path:
    """The LoCoMo dev set in ../shared, or skip: its CC BY-NC licence keeps it out of the repository."""
    path = shared_dir() / "bench" / "locomo-dev.json"
    if not path.is_file():
        pytest.skip(f"LoCoMo dev set not found at {path}: it is CC BY-NC licensed, so it is not in the "
                    "repository; clone the shared folder beside the project to run this test")
    return path
