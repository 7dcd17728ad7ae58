"""Fixtures of the fault suite: synthetic inputs, workspaces, and clean runs to compare with."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_pipeline_tests.faults import harness
from memory_pipeline_tests.faults.compare import StoreState, read_state
from memory_pipeline_tests.faults.harness import Workspaces, emit_inputs, ingest_here, using_workspace, write_inputs

SMALL_PER_DAY = 10  # 20 events over two days: enough to stop a run half way


@pytest.fixture(scope="session")
def fault_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("faults")


@pytest.fixture(scope="session", autouse=True)
def fast_embedding_model() -> Path:
    path = harness.build_fast_model(harness.fast_model_folder())
    harness.BASE_ENV["MEMORY_EMBEDDING_MODEL"] = str(path)
    yield path
    harness.BASE_ENV.pop("MEMORY_EMBEDDING_MODEL", None)


@pytest.fixture(scope="session")
def small_inputs(fault_root: Path) -> dict[str, list[Path]]:
    return write_inputs(fault_root / "inputs-small", SMALL_PER_DAY)


@pytest.fixture(scope="session")
def session_workspaces(fault_root: Path):
    made = Workspaces(fault_root / "session-ws")
    yield made
    made.stop_all()


@pytest.fixture
def workspaces(tmp_path: Path):
    made = Workspaces(tmp_path)
    yield made
    made.stop_all()


@pytest.fixture(scope="session")
def clean_small(session_workspaces: Workspaces, small_inputs) -> StoreState:
    """The state a clean offline ingest of the small input leaves."""
    ws = session_workspaces.new("clean-small")
    emit_inputs(ws, small_inputs)
    report = ingest_here(ws)
    assert report.success and report.accepted == 20, report.as_dict()
    with using_workspace(ws):
        return read_state(ws)
