"""`hooks install claude-code` as a user runs it, checked with the real Claude Code in a fresh HOME:
with no flags the client sees the hooks and the memory MCP server in every project and nothing
appears in the repository (git status stays clean); `--project` puts both where only this user and
this project see them; `--uninstall` takes each away and leaves no file behind."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

from memory_pipeline_tests.support.agent_clients import ClientHome, hook_timings


def git_status(repo: Path) -> str:
    return subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=repo, capture_output=True, text=True,
                          check=True).stdout


def memory_server_line(home: ClientHome, cwd: Path) -> str:
    """`claude mcp list`'s line for the memory server (it starts each server to check it), or ""."""
    listed = home.claude(["mcp", "list"], cwd=cwd, timeout=120)
    return next((line for line in listed.stdout.splitlines() if line.startswith("memory:")), "")


def hooks_ran(home: ClientHome, cwd: Path, log: Path) -> set[str]:
    done = home.claude(["-p", "Say hi", "--session-id", str(uuid.uuid4()), "--debug-file", str(log)], cwd=cwd)
    assert done.returncode == 0, done.stderr
    return {event for event, status, _ in hook_timings(log) if status == 0}


def test_the_user_install_reaches_claude_code_and_leaves_the_repository_clean(clients, models, module_tmp: Path):
    home = ClientHome(clients, module_tmp / "home-user", models.url, module_tmp / "ws-user")
    repo = module_tmp / "checkout"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    try:
        installed = home.install_hooks(repo)
        assert installed.returncode == 0, installed.stderr
        assert git_status(repo) == "" and list(repo.iterdir()) == [repo / ".git"]
        assert "Connected" in memory_server_line(home, repo)
        assert {"SessionStart", "UserPromptSubmit", "Stop"} <= hooks_ran(home, repo, module_tmp / "user.log")
        elsewhere = module_tmp / "another-project"  # a user install: every project
        elsewhere.mkdir()
        assert "Connected" in memory_server_line(home, elsewhere)
        assert git_status(repo) == ""

        removed = home.install_hooks(repo, "--uninstall")
        assert removed.returncode == 0, removed.stderr
        assert memory_server_line(home, repo) == ""
        assert not home.claude_settings.exists()
    finally:
        home.memory(["stop"], cwd=repo, timeout=60)


def test_a_project_install_is_seen_in_that_project_only(clients, models, module_tmp: Path):
    home = ClientHome(clients, module_tmp / "home-project", models.url, module_tmp / "ws-project")
    repo = module_tmp / "service"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    other = module_tmp / "unrelated"
    other.mkdir()
    try:
        installed = home.install_hooks(repo, "--project")
        assert installed.returncode == 0, installed.stderr
        assert sorted(p.name for p in (repo / ".claude").iterdir()) == ["settings.local.json"]
        assert not (repo / ".mcp.json").exists()
        assert "Connected" in memory_server_line(home, repo)
        assert memory_server_line(home, other) == ""
        assert "SessionStart" in hooks_ran(home, repo, module_tmp / "project.log")
        assert "SessionStart" not in hooks_ran(home, other, module_tmp / "other.log")
        assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True,
                              check=True).stdout == ""  # settings.local.json: in the repository's exclude list

        removed = home.install_hooks(repo, "--project", "--uninstall")
        assert removed.returncode == 0, removed.stderr
        assert memory_server_line(home, repo) == "" and not (repo / ".claude").exists()
    finally:
        home.memory(["stop"], cwd=repo, timeout=60)
