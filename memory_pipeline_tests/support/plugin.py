"""Shared test fixtures as a pytest plugin.

Load it from the root conftest with `pytest_plugins = ["memory_pipeline_tests.support.plugin"]`,
or import a fixture by name into a test module:
`from memory_pipeline_tests.support.anthropic_server import anthropic_server  # noqa: F401`.
"""

from __future__ import annotations

import os
import sys

import pytest

from memory_pipeline_tests.support.anthropic_server import anthropic_server
from memory_pipeline_tests.support.fake_llm import QueuedProvider
from memory_pipeline_tests.support.leaks import leftover_services, stop_leftovers
from memory_pipeline_tests.support.workspaces import workspace, workspace_dir

__all__ = ["anthropic_server", "queued_provider", "workspace", "workspace_dir"]


@pytest.fixture
def queued_provider() -> QueuedProvider:
    """A fresh QueuedProvider named "fake"."""
    return QueuedProvider()


class _HeavyImportBlocker:
    """Under `make test-fast` (MEMORY_TEST_FAST=1) a test that imports the model or Dagster fails
    and says to mark it slow, so the fast target stays fast and honest."""

    HEAVY = ("torch", "sentence_transformers", "dagster")

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.HEAVY:
            raise ImportError(f"test-fast: this test imports {name}; mark it @pytest.mark.slow")
        return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    if os.environ.get("MEMORY_TEST_FAST") != "1":
        return (yield)
    blocker = _HeavyImportBlocker()
    sys.meta_path.insert(0, blocker)
    try:
        return (yield)
    finally:
        sys.meta_path.remove(blocker)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when a redis-server, watchdog, recall service or `dagster dev` started under the
    run's temporary folders is still alive at the end; stop them first, so nothing outlives the run."""
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None or getattr(factory, "_basetemp", None) is None:
        return  # no test asked for a temporary folder: nothing can have been started in one
    leftovers = leftover_services(factory.getbasetemp())
    if not leftovers:
        return
    stop_leftovers(leftovers)
    lines = "\n".join(f"  {item}" for item in leftovers)
    sys.stderr.write(f"\nprocesses left behind by tests (now stopped):\n{lines}\n")
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
