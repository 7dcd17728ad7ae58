"""Fixtures for a fresh workspace: its own folder, Dagster home and embedded Redis, stopped after."""

from __future__ import annotations

from pathlib import Path

import pytest
from memory_pipeline_tests.support.doors import embedded_redis, runtime_dir


@pytest.fixture
def workspace_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "workspace"
    monkeypatch.setenv("MEMORY_WORKSPACE", str(root))
    return root


@pytest.fixture
def workspace(workspace_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A fresh workspace with its own Dagster home; its embedded redis-server is stopped after."""
    from memory_pipeline.resources.redis.embedded_redis import EmbeddedRedis
    from memory_pipeline.resources.workspace import Workspace

    (tmp_path / "dagster").mkdir(exist_ok=True)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    for name in ("REDIS_URL", "QDRANT_URL", "ANTHROPIC_API_KEY", "MEMORY_LLM_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    ws = Workspace(workspace_dir).create()
    yield ws
    from memory_pipeline.resources.daemons.services import stop_workspace_services

    stop_workspace_services(ws, runtime_dir())  # the recall service, the ui, Redis and its watchdog
    embedded_redis(ws.state).stop()
