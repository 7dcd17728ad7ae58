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


LEFTOVERS = "memory_pipeline_leftovers"
LEFTOVERS_REPORT = "memory_pipeline_leftovers_report"


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when a redis-server, watchdog, recall service or `dagster dev` started under the
    run's temporary folders is still alive at the end; stop them first, so nothing outlives the run.
    An xdist worker hands what it found to the controller, which fails the run."""
    factory = getattr(session.config, "_tmp_path_factory", None)
    found = getattr(session.config, LEFTOVERS, [])
    if factory is not None and getattr(factory, "_basetemp", None) is not None:
        leftovers = leftover_services(factory.getbasetemp())
        stop_leftovers(leftovers)
        found = [*found, *map(str, leftovers)]
    if not found:
        return
    if hasattr(session.config, "workeroutput"):  # an xdist worker: the controller reports it
        session.config.workeroutput[LEFTOVERS] = found
        return
    setattr(session.config, LEFTOVERS_REPORT, found)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Name what was left behind just above the run's closing count, where a CI log's tail shows it, with the
    folder that says which test started it."""
    found = getattr(config, LEFTOVERS_REPORT, [])
    if found:
        terminalreporter.write_sep("=", "processes left behind by tests (now stopped): the run fails", red=True)
        for item in found:
            terminalreporter.write_line(f"  {item}")


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """xdist's controller: collect what a finished worker left behind (see pytest_sessionfinish)."""
    output = getattr(node, "workeroutput", {}) or {}
    if output.get(LEFTOVERS):
        config = node.config
        setattr(config, LEFTOVERS, [*getattr(config, LEFTOVERS, []), *output[LEFTOVERS]])
