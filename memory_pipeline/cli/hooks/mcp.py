"""The memory MCP server's entry in each client's config, for `install-hooks` (and `--uninstall`).

Claude Code: the project's `.mcp.json` (approved in its `.claude/settings.json` with
`enabledMcpjsonServers`), or with `--user` the user's `~/.claude.json`; Codex: `~/.codex/config.toml`.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from memory_pipeline.config import workspace_override
from memory_pipeline.stages.hooks.mcp_config import (
    add_json_server,
    add_toml_server,
    remove_json_server,
    remove_toml_server,
    server_entry,
)


def mcp_command() -> list[str]:
    """The installed console script, else this Python running the package."""
    beside = Path(sys.executable).parent / "memory-pipeline"
    found = str(beside) if beside.is_file() else shutil.which("memory-pipeline")
    return [found] if found else [sys.executable, "-m", "memory_pipeline.main"]


def mcp_entry() -> dict:
    workspace = workspace_override()
    return server_entry(mcp_command(), str(Path(workspace).expanduser().resolve()) if workspace else None)


def claude_config_path(project: Path | None, user: bool) -> Path:
    if user:
        return Path("~/.claude.json").expanduser()
    return (project or Path.cwd()).expanduser().resolve() / ".mcp.json"


def register_json(path: Path, root: Path, uninstall: bool, extra: dict | None = None, new_mode: int = 0o644) -> bool:
    """Add (or remove) our server in a JSON config with `mcpServers`; True when the file changed."""
    from memory_pipeline.cli.hooks.settings_file import read_settings, write_settings

    before = read_settings(path, root)
    after = remove_json_server(before) if uninstall else add_json_server(before, mcp_entry(), extra)
    if after == before or (uninstall and not path.exists()):
        return False
    write_settings(path, root, after, new_mode)
    return True


def codex_config_path() -> Path:
    return Path("~/.codex/config.toml").expanduser()


def register_toml(path: Path, root: Path, uninstall: bool) -> bool:
    """Add (or remove) `[mcp_servers.memory]` in Codex's config.toml, keeping the rest of the text."""
    from memory_pipeline.resources.agent_config import read_config_text, write_config_text

    before = read_config_text(path, root) or ""
    after = remove_toml_server(before, str(path)) if uninstall else add_toml_server(before, mcp_entry(), str(path))
    if after == before:
        return False
    write_config_text(path, root, after, 0o600)  # it may hold tokens (bearer_token, env)
    return True
