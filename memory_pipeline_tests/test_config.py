"""Settings: one model, one default each, docs/configuration.md's table generated from it, nobody else reads env."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memory_pipeline.config import Settings, settings_table
from memory_pipeline.errors import BadInputError
from memory_pipeline_tests.support.paths import PROJECT_ROOT


def test_configuration_page_table_is_the_generated_one():
    page = (PROJECT_ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    block = page.split("<!-- settings:start -->\n", 1)[1].split("<!-- settings:end -->", 1)[0]
    assert block.strip() == settings_table().strip(), "regenerate with `python -m memory_pipeline.config`"


def test_every_setting_has_one_env_name_and_a_description():
    names = [info.json_schema_extra["env"] for info in Settings.model_fields.values()]
    assert len(names) == len(set(names))
    assert all(info.description for info in Settings.model_fields.values())


def test_defaults_and_overrides(tmp_path: Path):
    default = Settings.from_env({})
    assert default.llm_provider == "offline" and default.qdrant_lock_timeout == 30.0
    keyed = Settings.from_env({"ANTHROPIC_API_KEY": "k", "MEMORY_QDRANT_LOCK_TIMEOUT": "2.5",
                               "MEMORY_WORKSPACE": str(tmp_path / "ws"), "REDIS_URL": " "})
    assert keyed.llm_provider == "offline" and keyed.qdrant_lock_timeout == 2.5  # a key alone chooses nothing
    assert keyed.workspace == (tmp_path / "ws").resolve() and keyed.redis_url is None  # blank = unset


def test_the_provider_is_chosen_in_the_workspace_or_the_environment_never_by_a_key(tmp_path: Path):
    workspace = tmp_path / "ws"
    env = {"ANTHROPIC_API_KEY": "sk-ant-does-not-answer", "MEMORY_WORKSPACE": str(workspace)}
    assert Settings.from_env(env).llm_provider == "offline"
    workspace.mkdir()
    (workspace / "settings.json").write_text('{"MEMORY_LLM_PROVIDER": "claude-code", "OBSERVER_MODEL": "x"}')
    chosen = Settings.from_env(env)
    assert chosen.llm_provider == "claude-code" and chosen.observer_model == "claude-haiku-4-5"  # only the provider
    assert Settings.from_env({**env, "MEMORY_LLM_PROVIDER": "openai"}).llm_provider == "openai-compatible"
    (workspace / "settings.json").write_text("{not json")
    with pytest.raises(BadInputError, match="settings.json is not JSON"):
        Settings.from_env(env)


def test_a_bad_value_names_its_variable():
    with pytest.raises(BadInputError, match="MEMORY_RECALL_IDLE_TIMEOUT='soon'"):
        Settings.from_env({"MEMORY_RECALL_IDLE_TIMEOUT": "soon"})


def test_only_config_and_fault_injection_read_the_environment():
    readers = []
    for path in (PROJECT_ROOT / "memory_pipeline").rglob("*.py"):
        if re.search(r"os\.environ|os\.getenv", path.read_text(encoding="utf-8")):
            readers.append(path.relative_to(PROJECT_ROOT).as_posix())
    # hook_entry.py and mcp_entry.py are the hooks' and the MCP server's stdlib-only doors: they find the
    # workspace before Settings (pydantic) could be imported, and hand the environment on to the hook
    # service, which builds Settings
    assert sorted(readers) == ["memory_pipeline/config.py", "memory_pipeline/faults.py", "memory_pipeline/hook_entry.py",
                               "memory_pipeline/mcp_entry.py"]


def test_the_embedding_device_is_auto_unless_set():
    assert Settings.from_env({}).embedding_device == "auto"
    assert Settings.from_env({"MEMORY_EMBEDDING_DEVICE": " CUDA:1 "}).embedding_device == "cuda:1"
    with pytest.raises(BadInputError, match="MEMORY_EMBEDDING_DEVICE='gpu'"):
        Settings.from_env({"MEMORY_EMBEDDING_DEVICE": "gpu"})
