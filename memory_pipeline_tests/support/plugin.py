"""Shared test fixtures as a pytest plugin.

Load it from the root conftest with `pytest_plugins = ["memory_pipeline_tests.support.plugin"]`,
or import a fixture by name into a test module:
`from memory_pipeline_tests.support.anthropic_server import anthropic_server  # noqa: F401`.
"""

from __future__ import annotations

import pytest

from memory_pipeline_tests.support.anthropic_server import anthropic_server
from memory_pipeline_tests.support.fake_llm import QueuedProvider

__all__ = ["anthropic_server", "queued_provider"]


@pytest.fixture
def queued_provider() -> QueuedProvider:
    """A fresh QueuedProvider named "fake"."""
    return QueuedProvider()
