"""The real agent clients against a loopback model server: fixtures shared by this folder.

The clients come from npm (support/agent_clients.py pins them); where they cannot be installed
every test here is skipped with the reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_pipeline_tests.support.agent_clients import Clients, installed_clients
from memory_pipeline_tests.support.loopback_models import LoopbackModels


@pytest.fixture(scope="session")
def clients() -> Clients:
    found = installed_clients()
    if isinstance(found, str):
        pytest.skip(f"real agent clients unavailable: {found}")
    print("\nagent clients: " + ", ".join(f"{name} {version}" for name, version in found.versions.items()))
    return found


@pytest.fixture(scope="module")
def models() -> Iterator[LoopbackModels]:
    with LoopbackModels() as server:
        yield server


@pytest.fixture(scope="module")
def module_tmp(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("clients")
