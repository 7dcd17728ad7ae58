"""The test suite's root: the offline environment and the support plugin. Helpers live in support/."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# The shared fixtures are dated back to 2025 (the default first day is 90 days back); the tests of
# the default unset it.
os.environ.setdefault("MEMORY_PARTITIONS_START", "2023-01-01")
# Hooks start no Dagster daemon in tests unless a test asks (memory_pipeline_tests/e2e/test_always_on.py)
os.environ.setdefault("MEMORY_DAEMON_AUTOSTART", "0")

pytest_plugins = ["memory_pipeline_tests.support.plugin", "memory_pipeline_tests.support.slow_first"]


def pytest_report_header(config):
    from memory_pipeline_tests.support.agent_clients import versions_line

    return versions_line()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The client versions again at the end: `pytest -q` (make test) shows no header."""
    from memory_pipeline_tests.support.agent_clients import versions_line

    terminalreporter.write_line(versions_line())
