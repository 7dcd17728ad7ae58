"""`install-hooks` registers the memory MCP server where Claude Code and Codex look for it."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from memory_pipeline_tests.cli.hook_helpers import hook_env, run_cli


def install(args: list[str], env: dict[str, str]) -> dict:
    done = run_cli(["install-hooks", *args, "--json"], env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_claude_code_project_gets_mcp_json_and_its_approval(tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"db": {"command": "db-mcp"}}}))
    env = hook_env(tmp_path / "ws", HOME=str(tmp_path / "home"))
    result = install(["claude-code", "--project", str(project)], env)
    assert result["mcp"] == {"config": str(project / ".mcp.json"), "changed": True}
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert servers["db"] == {"command": "db-mcp"}
    assert servers["memory"]["type"] == "stdio" and servers["memory"]["args"][-1] == "mcp"
    assert Path(servers["memory"]["command"]).is_file()
    assert servers["memory"]["env"] == {"MEMORY_WORKSPACE": str(tmp_path / "ws")}
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert settings["enabledMcpjsonServers"] == ["memory"] and "SessionStart" in settings["hooks"]
    text = (project / ".mcp.json").read_text()
    assert not install(["claude-code", "--project", str(project)], env)["mcp"]["changed"]
    assert (project / ".mcp.json").read_text() == text
    assert install(["claude-code", "--project", str(project), "--uninstall"], env)["mcp"]["changed"]
    assert json.loads((project / ".mcp.json").read_text()) == {"mcpServers": {"db": {"command": "db-mcp"}}}
    assert "enabledMcpjsonServers" not in json.loads((project / ".claude" / "settings.json").read_text())


def test_claude_code_user_and_codex_configs(tmp_path: Path):
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text('model = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "docs"\n')
    (home / ".claude.json").write_text(json.dumps({"numStartups": 3, "mcpServers": {"x": {"command": "x"}}}))
    env = hook_env(tmp_path / "ws", HOME=str(home))
    assert install(["claude-code", "--user"], env)["mcp"]["changed"]
    user = json.loads((home / ".claude.json").read_text())
    assert user["numStartups"] == 3 and set(user["mcpServers"]) == {"x", "memory"}
    assert "type" not in user["mcpServers"]["memory"]
    assert install(["codex"], env)["mcp"] == {"config": str(home / ".codex" / "config.toml"), "changed": True}
    codex = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert codex["model"] == "gpt-5" and codex["mcp_servers"]["docs"] == {"command": "docs"}
    assert codex["mcp_servers"]["memory"]["args"][-1] == "mcp"
    assert not install(["codex"], env)["mcp"]["changed"]
    assert install(["codex", "--uninstall"], env)["mcp"]["changed"]
    assert (home / ".codex" / "config.toml").read_text() == 'model = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "docs"\n'
    install(["claude-code", "--user", "--uninstall"], env)
    assert json.loads((home / ".claude.json").read_text()) == {"numStartups": 3, "mcpServers": {"x": {"command": "x"}}}


def test_a_foreign_memory_server_is_reported_and_nothing_is_written(tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    foreign = json.dumps({"mcpServers": {"memory": {"command": "npx", "args": ["@modelcontextprotocol/server-memory"]}}})
    (project / ".mcp.json").write_text(foreign)
    done = run_cli(["install-hooks", "claude-code", "--project", str(project)], hook_env(tmp_path / "ws"))
    assert done.returncode == 2 and b"not memory-pipeline's" in done.stderr and b"Traceback" not in done.stderr
    assert (project / ".mcp.json").read_text() == foreign
    assert not (project / ".claude" / "settings.json").exists()
