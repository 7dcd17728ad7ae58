"""`memory-pipeline install-hooks claude-code` on real settings files."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from memory_pipeline_tests.cli.hook_helpers import hook_env, run_cli

THEIRS = {
    "permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Read(./.env)"]},
    "env": {"FOO": "bar"},
    "hooks": {
        "PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "npx prettier --write"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "cat NOTES.md"}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "./check-prompt.sh", "timeout": 5}]}],
    },
}


def install(args: list[str], env: dict[str, str]) -> dict:
    done = run_cli(["install-hooks", "claude-code", *args, "--json"], env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def ours(settings: dict) -> dict[str, list[dict]]:
    return {event: [h for g in groups for h in g["hooks"] if "hook claude-code" in h["command"]]
            for event, groups in settings["hooks"].items()}


def test_merge_is_idempotent_and_uninstall_leaves_theirs(tmp_path: Path):
    project = tmp_path / "project"
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(THEIRS, indent=2))
    settings.chmod(0o644)
    env = hook_env(tmp_path / "ws")

    first = install(["--project", str(project)], env)
    assert first["changed"] and first["settings"] == str(settings)
    merged = json.loads(settings.read_text())
    assert merged["permissions"] == THEIRS["permissions"] and merged["env"] == THEIRS["env"]
    assert merged["hooks"]["PostToolUse"] == THEIRS["hooks"]["PostToolUse"]
    assert merged["hooks"]["SessionStart"][0] == THEIRS["hooks"]["SessionStart"][0]
    assert merged["hooks"]["UserPromptSubmit"][0] == THEIRS["hooks"]["UserPromptSubmit"][0]
    added = ours(merged)
    assert {e for e, found in added.items() if found} == {"PreCompact", "SessionStart", "SessionEnd", "UserPromptSubmit",
                                                          "Stop"}
    command = added["PreCompact"][0]["command"]
    words = shlex.split(command)
    assert words[0] == f"MEMORY_WORKSPACE={tmp_path / 'ws'}"
    assert Path(words[1]).is_absolute() and Path(words[1]).is_file()  # this Python, without site (-S)
    assert words[2] == "-S" and Path(words[3]).name == "hook_entry.py" and Path(words[3]).is_file()
    assert words[4:] == ["hook", "claude-code"]
    assert settings.stat().st_mode & 0o777 == 0o644

    text = settings.read_text()
    again = install(["--project", str(project)], env)
    assert not again["changed"] and settings.read_text() == text

    removed = install(["--project", str(project), "--uninstall"], env)
    assert removed["changed"] and json.loads(settings.read_text()) == THEIRS
    assert not install(["--project", str(project), "--uninstall"], env)["changed"]


def test_user_settings_are_created_when_missing(tmp_path: Path):
    env = hook_env(tmp_path / "ws", HOME=str(tmp_path / "home"))
    result = install(["--user"], env)
    path = tmp_path / "home" / ".claude" / "settings.json"
    assert result["settings"] == str(path) and result["changed"]
    settings = json.loads(path.read_text())
    assert settings["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    assert "matcher" not in settings["hooks"]["SessionEnd"][0]
    install(["--user", "--uninstall"], env)
    assert json.loads(path.read_text()) == {}


def test_a_broken_settings_file_is_left_alone(tmp_path: Path):
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooks": {')
    done = run_cli(["install-hooks", "claude-code", "--project", str(tmp_path)], hook_env(tmp_path / "ws"))
    assert done.returncode == 2 and b"not valid JSON" in done.stderr
    assert settings.read_text() == '{"hooks": {'
