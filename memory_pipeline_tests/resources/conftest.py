"""Fixtures for resource tests: the embedder loads once per test session."""

from __future__ import annotations

import pytest

from memory_pipeline.resources.embedding.embedder import Embedder, get_embedder


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return get_embedder("all-MiniLM-L6-v2")
