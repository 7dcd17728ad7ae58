"""`memory-pipeline hooks install claude-code` on real settings files: for the user by default
(nothing written into the repository), `--project` into files that are not shared, and
`--uninstall` restoring each file as it was."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
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
EVENTS = {"PreCompact", "SessionStart", "SessionEnd", "UserPromptSubmit", "Stop"}


def install(args: list[str], env: dict[str, str], cwd: Path | None = None) -> dict:
    """`hooks install claude-code ARGS --json` run from `cwd`, as a user types it."""
    done = subprocess.run([sys.executable, "-m", "memory_pipeline.cli", "hooks", "install", "claude-code", *args,
                           "--json"], env=env, cwd=cwd, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def ours(settings: dict) -> dict[str, list[dict]]:
    return {event: [h for g in groups for h in g["hooks"] if "hook claude-code" in h["command"]]
            for event, groups in settings["hooks"].items()}


def git_status(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "status", "--porcelain", *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout


def repository(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def test_the_default_is_the_user_install_and_no_file_appears_in_the_repository(tmp_path: Path):
    home, repo = tmp_path / "home", repository(tmp_path / "repo")
    env = hook_env(tmp_path / "ws", HOME=str(home))
    result = install([], env, cwd=repo)
    assert result["scope"] == "user" and result["settings"] == str(home / ".claude" / "settings.json")
    assert git_status(repo, "--ignored") == ""
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert {e for e, found in ours(settings).items() if found} == EVENTS
    assert settings["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    assert "matcher" not in settings["hooks"]["SessionEnd"][0]
    assert "enabledMcpjsonServers" not in settings  # nothing pre-approves a project's server
    assert (home / ".claude.json").stat().st_mode & 0o777 == 0o600
    assert install(["--user"], env, cwd=repo)["changed"] is False  # the old flag: the same install
    removed = install(["--uninstall"], env, cwd=repo)
    assert {f["action"] for f in removed["files"]} == {"removed"}
    assert not (home / ".claude" / "settings.json").exists() and not (home / ".claude.json").exists()
    assert not (home / ".claude").exists()  # the folder install made goes too: nothing left behind


def test_merge_is_idempotent_and_uninstall_restores_their_file(tmp_path: Path):
    home = tmp_path / "home"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(THEIRS, indent=2))
    settings.chmod(0o640)
    env = hook_env(tmp_path / "ws", HOME=str(home))

    first = install(["--no-mcp"], env)
    assert first["changed"] and first["settings"] == str(settings) and first["mcp"] is None
    merged = json.loads(settings.read_text())
    assert merged["permissions"] == THEIRS["permissions"] and merged["env"] == THEIRS["env"]
    assert merged["hooks"]["PostToolUse"] == THEIRS["hooks"]["PostToolUse"]
    assert merged["hooks"]["SessionStart"][0] == THEIRS["hooks"]["SessionStart"][0]
    assert merged["hooks"]["UserPromptSubmit"][0] == THEIRS["hooks"]["UserPromptSubmit"][0]
    added = ours(merged)
    assert {e for e, found in added.items() if found} == EVENTS
    words = shlex.split(added["PreCompact"][0]["command"])
    assert words[0] == f"MEMORY_WORKSPACE={tmp_path / 'ws'}"
    assert Path(words[1]).is_absolute() and Path(words[1]).is_file()  # this Python, without site (-S)
    assert words[2] == "-S" and Path(words[3]).name == "hook_entry.py" and Path(words[3]).is_file()
    assert words[4:] == ["hook", "claude-code"]
    assert settings.stat().st_mode & 0o777 == 0o640
    assert not (home / ".claude.json").exists()

    text = settings.read_text()
    assert not install(["--no-mcp"], env)["changed"] and settings.read_text() == text
    removed = install(["--no-mcp", "--uninstall"], env)
    assert removed["changed"] and json.loads(settings.read_text()) == THEIRS
    assert not install(["--no-mcp", "--uninstall"], env)["changed"]


def test_a_project_install_writes_only_files_that_are_not_shared(tmp_path: Path):
    home, repo = tmp_path / "home", repository(tmp_path / "repo")
    (repo / "src").mkdir()
    pristine = (repo / ".git" / "info" / "exclude").read_text()
    env = hook_env(tmp_path / "ws", HOME=str(home))
    result = install(["--project"], env, cwd=repo / "src")
    local = repo / "src" / ".claude" / "settings.local.json"
    assert result["scope"] == "project" and result["settings"] == str(local)
    assert {e for e, found in ours(json.loads(local.read_text())).items() if found} == EVENTS
    user = json.loads((home / ".claude.json").read_text())
    assert "mcpServers" not in user  # not at user scope: local, keyed by the repository's top folder
    assert user["projects"][str(repo)]["mcpServers"]["memory"]["args"][-1] == "mcp"
    assert sorted(p.name for p in (repo / "src").iterdir()) == [".claude"]
    assert not (repo / ".mcp.json").exists() and not (repo / "src" / ".claude" / "settings.json").exists()
    exclude = repo / ".git" / "info" / "exclude"
    assert "/src/.claude/settings.local.json" in exclude.read_text().splitlines()
    assert git_status(repo) == ""  # kept out of commits by the repository's own exclude list
    again = install(["--project", str(repo / "src")], env)
    assert {f["action"] for f in again["files"]} == {"unchanged"}
    install(["--project", str(repo / "src"), "--uninstall"], env)
    assert list((repo / "src").iterdir()) == [] and not (home / ".claude.json").exists()
    assert exclude.read_text() == pristine


def test_a_worktree_is_keyed_by_its_repository_as_claude_code_does(tmp_path: Path):
    home, repo = tmp_path / "home", repository(tmp_path / "repo")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "first"], cwd=repo, check=True)
    subprocess.run(["git", "worktree", "add", "-q", str(tmp_path / "feature")], cwd=repo, check=True)
    install(["--project"], hook_env(tmp_path / "ws", HOME=str(home)), cwd=tmp_path / "feature")
    assert list(json.loads((home / ".claude.json").read_text())["projects"]) == [str(repo)]  # `claude mcp add` keys it so
    assert (tmp_path / "feature" / ".claude" / "settings.local.json").is_file()
    assert git_status(tmp_path / "feature") == ""


def test_a_project_install_removes_what_earlier_versions_shared(tmp_path: Path):
    home, repo = tmp_path / "home", repository(tmp_path / "repo")
    (repo / ".claude").mkdir()
    old = "/v/bin/memory-pipeline hook claude-code"
    shared = {**THEIRS, "enabledMcpjsonServers": ["db", "memory"],
              "hooks": {**THEIRS["hooks"], "Stop": [{"hooks": [{"type": "command", "command": old}]}]}}
    (repo / ".claude" / "settings.json").write_text(json.dumps(shared))
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "db": {"command": "db-mcp"}, "memory": {"type": "stdio", "command": "/v/bin/memory-pipeline", "args": ["mcp"]}}}))
    env = hook_env(tmp_path / "ws", HOME=str(home))
    result = install(["--project", str(repo)], env)
    assert [f["action"] for f in result["files"] if f["what"] == "earlier install"] == ["updated", "updated"]
    assert json.loads((repo / ".claude" / "settings.json").read_text()) == {**THEIRS, "enabledMcpjsonServers": ["db"]}
    assert json.loads((repo / ".mcp.json").read_text()) == {"mcpServers": {"db": {"command": "db-mcp"}}}


def test_a_broken_settings_file_is_left_alone(tmp_path: Path):
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"hooks": {')
    done = run_cli(["hooks", "install", "claude-code"], hook_env(tmp_path / "ws", HOME=str(tmp_path / "home")))
    assert done.returncode == 2 and b"not valid JSON" in done.stderr
    assert settings.read_text() == '{"hooks": {'
    assert not (tmp_path / "home" / ".claude.json").exists()  # nothing written when one file is refused
