"""`provider show|set`: the model provider is chosen in the workspace, never inferred from a key."""

from __future__ import annotations

import json
from pathlib import Path

from memory_pipeline_tests.cli.hook_helpers import hook_env, run_cli


def test_a_key_alone_keeps_the_offline_provider_and_set_keeps_the_choice(tmp_path: Path):
    env = hook_env(tmp_path / "ws", ANTHROPIC_API_KEY="sk-ant-api03-does-not-answer")
    shown = run_cli(["provider", "show", "--json"], env)
    assert shown.returncode == 0, shown.stderr
    found = json.loads(shown.stdout)
    assert found["provider"] == "offline" and found["observer_model"] == "offline-extractive-1"
    assert found["spent_tokens"] == 0 and found["chosen_by"] == "the default"

    chosen = run_cli(["provider", "set", "claude-code"], env)
    assert chosen.returncode == 0, chosen.stderr
    assert json.loads((tmp_path / "ws" / "settings.json").read_text()) == {"MEMORY_LLM_PROVIDER": "claude-code"}
    found = json.loads(run_cli(["provider", "show", "--json"], env).stdout)
    assert found["provider"] == "claude-code" and found["observer_model"] == "claude-haiku-4-5"
    assert found["chosen_by"].endswith("settings.json") and found["spent_tokens"] == 0

    status = json.loads(run_cli(["service", "status", "--json"], env).stdout)
    assert status["services"]["llm"]["provider"] == "claude-code"

    overridden = json.loads(run_cli(["provider", "show", "--json"], {**env, "MEMORY_LLM_PROVIDER": "offline"}).stdout)
    assert overridden["provider"] == "offline" and overridden["chosen_by"] == "MEMORY_LLM_PROVIDER"
    back = run_cli(["provider", "set", "offline"], env)
    assert back.returncode == 0 and json.loads(run_cli(["provider", "show", "--json"], env).stdout)["provider"] == "offline"


def test_a_garbled_settings_file_is_a_clear_error(tmp_path: Path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "settings.json").write_text("[1, 2")
    done = run_cli(["provider", "show"], hook_env(tmp_path / "ws"))
    assert done.returncode == 2 and b"settings.json is not JSON" in done.stderr and b"Traceback" not in done.stderr
