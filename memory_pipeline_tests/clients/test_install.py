"""Where the pinned clients cannot be installed, the real-client tests skip and say why."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline_tests.support.agent_clients import PINNED, clients_missing, installed_clients


def test_an_unreachable_registry_is_a_reason_not_a_crash(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")  # nothing listens on the discard port
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))  # not the machine's cache
    found = installed_clients(tmp_path / "prefix")
    assert isinstance(found, str) and "npm" in found, found
    assert clients_missing(tmp_path / "prefix") is not None
    assert all(version.count(".") == 2 for _, version in PINNED.values())
