"""`hooks install` registers the memory MCP server where Claude Code and Codex look for a user's own
servers: `~/.claude.json` (user or local scope) and `~/.codex/config.toml`."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from memory_pipeline_tests.cli.hook_helpers import hook_env, run_cli


def install(args: list[str], env: dict[str, str]) -> dict:
    done = run_cli(["hooks", "install", *args, "--json"], env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_claude_code_user_scope_as_claude_mcp_add_writes_it(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".claude.json").write_text(json.dumps({"numStartups": 3, "mcpServers": {"x": {"command": "x"}}}))
    (home / ".claude.json").chmod(0o600)
    env = hook_env(tmp_path / "ws", HOME=str(home))
    assert install(["claude-code"], env)["mcp"] == {"config": str(home / ".claude.json"), "changed": True}
    user = json.loads((home / ".claude.json").read_text())
    assert user["numStartups"] == 3 and set(user["mcpServers"]) == {"x", "memory"}
    memory = user["mcpServers"]["memory"]
    assert memory["type"] == "stdio" and memory["args"][-1] == "mcp" and Path(memory["command"]).is_file()
    assert memory["env"] == {"MEMORY_WORKSPACE": str(tmp_path / "ws")}
    assert (home / ".claude.json").stat().st_mode & 0o777 == 0o600
    text = (home / ".claude.json").read_text()
    assert not install(["claude-code"], env)["mcp"]["changed"] and (home / ".claude.json").read_text() == text
    install(["claude-code", "--uninstall"], env)
    assert json.loads((home / ".claude.json").read_text()) == {"numStartups": 3, "mcpServers": {"x": {"command": "x"}}}


def test_codex_config(tmp_path: Path):
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text('model = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "docs"\n')
    env = hook_env(tmp_path / "ws", HOME=str(home))
    assert install(["codex"], env)["mcp"] == {"config": str(home / ".codex" / "config.toml"), "changed": True}
    codex = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert codex["model"] == "gpt-5" and codex["mcp_servers"]["docs"] == {"command": "docs"}
    assert codex["mcp_servers"]["memory"]["args"][-1] == "mcp"
    # waited for before Codex's first step (else "omitting pending optional MCP server memory")
    assert codex["mcp_servers"]["memory"]["required"] is True
    assert codex["mcp_servers"]["memory"]["startup_timeout_sec"] == 30
    assert not install(["codex"], env)["mcp"]["changed"]
    assert install(["codex", "--uninstall"], env)["mcp"]["changed"]
    assert (home / ".codex" / "config.toml").read_text() == 'model = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "docs"\n'


def test_a_codex_config_install_created_is_removed_by_uninstall(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    env = hook_env(tmp_path / "ws", HOME=str(home))
    assert install(["codex"], env)["files"][0]["action"] == "created"
    assert install(["codex", "--uninstall"], env)["files"][0]["action"] == "removed"
    assert list(home.iterdir()) == []


def test_a_foreign_memory_server_is_reported_and_nothing_is_written(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    foreign = json.dumps({"mcpServers": {"memory": {"command": "npx", "args": ["@modelcontextprotocol/server-memory"]}}})
    (home / ".claude.json").write_text(foreign)
    done = run_cli(["hooks", "install", "claude-code"], hook_env(tmp_path / "ws", HOME=str(home)))
    assert done.returncode == 2 and b"not memory-pipeline's" in done.stderr and b"Traceback" not in done.stderr
    assert (home / ".claude.json").read_text() == foreign
    assert not (home / ".claude").exists()
