"""`hooks install` and `--uninstall` never read or write through a link, nor open a FIFO (issue 47):
a repository whose `.mcp.json` links to `~/.claude.json`, or whose `.claude` folder or settings
file links elsewhere, is refused with the reason; the link and its target stay as they were."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memory_pipeline_tests.cli.hook_helpers import hook_env, run_cli

SECRET = {"oauthAccount": {"emailAddress": "me@example.com"}, "primaryApiKey": "sk-ant-api03-secret"}


def refused(args: list[str], env: dict[str, str]) -> str:
    done = run_cli(["hooks", "install", *args], env, timeout=60)
    stderr = done.stderr.decode()
    assert done.returncode == 2, (done.returncode, stderr, done.stdout)
    assert "Traceback" not in stderr
    return stderr


@pytest.fixture
def setup(tmp_path: Path):
    home, project = tmp_path / "home", tmp_path / "repo"
    home.mkdir()
    project.mkdir()
    (project / ".git").mkdir()
    (home / ".claude.json").write_text(json.dumps(SECRET))
    return home, project, hook_env(tmp_path / "ws", HOME=str(home))


def unchanged(home: Path) -> None:
    assert json.loads((home / ".claude.json").read_text()) == SECRET


@pytest.mark.parametrize("uninstall", [[], ["--uninstall"]])
def test_a_linked_mcp_json_is_refused(setup, uninstall):
    home, project, env = setup
    (project / ".mcp.json").symlink_to(home / ".claude.json")
    stderr = refused(["claude-code", "--project", str(project), *uninstall], env)
    assert ".mcp.json is a symbolic link" in stderr and "nothing was changed" in stderr
    assert (project / ".mcp.json").is_symlink()
    unchanged(home)
    assert not (project / ".claude").exists()  # nothing else written either


@pytest.mark.parametrize("linked", ["folder", "file"])
def test_a_linked_claude_folder_or_settings_file_is_refused(setup, linked, tmp_path: Path):
    home, project, env = setup
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "settings.json").write_text('{"env": {"A": "1"}}')
    if linked == "folder":
        (project / ".claude").symlink_to(elsewhere)
    else:
        (project / ".claude").mkdir()
        (project / ".claude" / "settings.json").symlink_to(elsewhere / "settings.json")
    stderr = refused(["claude-code", "--project", str(project)], env)
    assert "is a symbolic link" in stderr
    assert (elsewhere / "settings.json").read_text() == '{"env": {"A": "1"}}'
    assert sorted(p.name for p in elsewhere.iterdir()) == ["settings.json"]
    assert not (project / ".mcp.json").exists()


def test_a_fifo_is_refused_without_waiting(setup):
    home, project, env = setup
    (project / ".claude").mkdir()
    os.mkfifo(project / ".claude" / "settings.json")
    stderr = refused(["claude-code", "--project", str(project)], env)  # run_cli's timeout: 60 s
    assert "named pipe" in stderr


def test_linked_user_files_are_refused_for_every_client(setup, tmp_path: Path):
    home, _, env = setup
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "config.toml").write_text('model = "gpt-5"\n')
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").symlink_to(dotfiles / "config.toml")
    assert "config.toml is a symbolic link" in refused(["codex"], env)
    assert (dotfiles / "config.toml").read_text() == 'model = "gpt-5"\n'
    (home / ".claude").symlink_to(dotfiles)
    assert ".claude is a symbolic link" in refused(["claude-code", "--user"], env)
    assert sorted(p.name for p in dotfiles.iterdir()) == ["config.toml"]
    unchanged(home)


def test_a_linked_pi_extensions_folder_is_refused(setup, tmp_path: Path):
    home, _, env = setup
    shared = tmp_path / "shared-extensions"
    shared.mkdir()
    (home / ".pi" / "agent").mkdir(parents=True)
    (home / ".pi" / "agent" / "extensions").symlink_to(shared)
    assert "extensions is a symbolic link" in refused(["pi"], env)
    assert list(shared.iterdir()) == []


def test_a_linked_git_exclude_is_refused_before_anything_is_written(setup, tmp_path: Path):
    home, project, env = setup
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path / "real")], check=True)
    (project / ".git").rmdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    elsewhere = tmp_path / "real" / ".git" / "info" / "exclude"
    (project / ".git" / "info" / "exclude").unlink()
    (project / ".git" / "info" / "exclude").symlink_to(elsewhere)
    before = elsewhere.read_text()
    assert "exclude is a symbolic link" in refused(["claude-code", "--project", str(project)], env)
    assert elsewhere.read_text() == before and not (project / ".claude").exists()
    unchanged(home)
