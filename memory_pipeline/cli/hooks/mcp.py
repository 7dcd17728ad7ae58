"""The memory MCP server's entry in each client's config, for `install-hooks` (and `--uninstall`).

Claude Code: the project's `.mcp.json` (approved in its `.claude/settings.json` with
`enabledMcpjsonServers`), or with `--user` the user's `~/.claude.json`; Codex: `~/.codex/config.toml`.
"""

from __future__ import annotations

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
    """This Python without site (`-S`) running the stdlib-only MCP door, memory_pipeline/mcp_entry.py,
    by its absolute path: it answers `initialize` in the time of a Python start (docs/mcp.md)."""
    from memory_pipeline import mcp_entry

    return [sys.executable, "-S", str(Path(mcp_entry.__file__).resolve())]


def mcp_entry() -> dict:
    workspace = workspace_override()
    return server_entry(mcp_command(), str(Path(workspace).expanduser().resolve()) if workspace else None)


def claude_config_path(project: Path | None, user: bool) -> Path:
    if user:
        return Path("~/.claude.json").expanduser()
    return (project or Path.cwd()).expanduser().resolve() / ".mcp.json"


def register_json(path: Path, uninstall: bool, extra: dict | None = None) -> bool:
    """Add (or remove) our server in a JSON config with `mcpServers`; True when the file changed."""
    from memory_pipeline.cli.hooks.settings_file import read_settings, write_settings

    before = read_settings(path)
    after = remove_json_server(before) if uninstall else add_json_server(before, mcp_entry(), extra)
    if after == before or (uninstall and not path.exists()):
        return False
    write_settings(path, after)
    return True


def codex_config_path() -> Path:
    return Path("~/.codex/config.toml").expanduser()


def register_toml(path: Path, uninstall: bool) -> bool:
    """Add (or remove) `[mcp_servers.memory]` in Codex's config.toml, keeping the rest of the text."""
    from memory_pipeline.resources.workspace import atomic_write_text

    before = path.read_text(encoding="utf-8") if path.exists() else ""
    after = remove_toml_server(before, str(path)) if uninstall else add_toml_server(before, mcp_entry(), str(path))
    if after == before:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, after)
    return True
