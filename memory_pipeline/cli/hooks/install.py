"""`memory-pipeline hooks install claude-code|codex [--project DIR | --user] [--uninstall] [--no-mcp]`
(the old name `install-hooks` still works).

Claude Code gets the hooks and the memory MCP server; Codex gets the MCP server.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from pathlib import Path

from memory_pipeline.cli.common import add_json_flag, print_json
from memory_pipeline.cli.hooks.mcp import claude_config_path, codex_config_path, register_json, register_toml
from memory_pipeline.cli.hooks.settings_file import read_settings, write_settings
from memory_pipeline.config import workspace_override
from memory_pipeline.errors import BadInputError


HELP = "add (or remove) the memory hooks and MCP server in an agent's config"


def add_arguments(parser) -> None:
    parser.add_argument("agent", choices=["claude-code", "codex"])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--project", type=Path, metavar="DIR", help="DIR/.claude/settings.json (default: current folder)")
    where.add_argument("--user", action="store_true", help="~/.claude/settings.json")
    parser.add_argument("--uninstall", action="store_true", help="remove only this project's hook and server entries")
    parser.add_argument("--no-mcp", action="store_true", help="leave the memory MCP server out (hooks only)")
    add_json_flag(parser)
    parser.set_defaults(handler=run_install_hooks)


def config_root(project: Path | None, user: bool) -> Path:
    """The folder the user named, under which install reads and writes (nothing below it is followed)."""
    return Path("~").expanduser() if user else (project or Path.cwd()).expanduser().resolve()


def settings_path(project: Path | None, user: bool) -> Path:
    return config_root(project, user) / ".claude" / "settings.json"


def hook_argv() -> list[str]:
    """This Python without site (`-S`: no site-packages scan, ~40 ms less per call) running the
    stdlib-only hook door, memory_pipeline/hook_entry.py, by its absolute path."""
    from memory_pipeline import hook_entry

    return [sys.executable, "-S", str(Path(hook_entry.__file__).resolve()), "hook", "claude-code"]


def hook_command() -> str:
    """The hook's command line (with the workspace, when one is set). Commands written by earlier
    versions (`…/memory-pipeline hook claude-code`) still work: they take the same door."""
    workspace = workspace_override()
    prefix = f"MEMORY_WORKSPACE={shlex.quote(str(Path(workspace).expanduser().resolve()))} " if workspace else ""
    return prefix + " ".join(shlex.quote(word) for word in hook_argv())


def run_install_hooks(args) -> int:
    from memory_pipeline.stages.hooks.mcp_config import enable_project_server
    from memory_pipeline.stages.hooks.settings import HOOK_EVENTS, add_our_hooks, remove_our_hooks

    if args.agent == "codex":
        return run_install_codex(args)
    root = config_root(args.project, args.user)
    path = settings_path(args.project, args.user)
    before = read_settings(path, root)
    command = hook_command()
    after = remove_our_hooks(before) if args.uninstall else add_our_hooks(before, command)
    with_mcp = not args.no_mcp
    if with_mcp and not args.user:  # installing is the user's approval of the project's .mcp.json entry
        after = enable_project_server(after, not args.uninstall)
    mcp_path = claude_config_path(args.project, args.user)
    mcp_changed = with_mcp and register_json(mcp_path, root, args.uninstall,
                                             None if args.user else {"type": "stdio"}, 0o600 if args.user else 0o644)
    changed = after != before
    if changed and (path.exists() or not args.uninstall):
        write_settings(path, root, after)
    if args.json:
        print_json({"settings": str(path), "changed": changed, "uninstall": args.uninstall,
                    "command": None if args.uninstall else command, "events": list(HOOK_EVENTS),
                    "mcp": {"config": str(mcp_path), "changed": mcp_changed} if with_mcp else None})
        return 0
    if args.uninstall:
        print(f"{'removed memory-pipeline hooks from' if changed else 'no memory-pipeline hooks in'} {path}")
    else:
        print(f"{'installed' if changed else 'already installed:'} {', '.join(HOOK_EVENTS)} → {command}")
        print(f"in {path}")
    if with_mcp:
        print_mcp(mcp_path, mcp_changed, args.uninstall)
    return 0


def print_mcp(path: Path, changed: bool, uninstall: bool) -> None:
    if uninstall:
        print(f"{'removed the memory MCP server from' if changed else 'no memory MCP server in'} {path}")
    else:
        print(f"{'registered' if changed else 'already registered:'} the memory MCP server in {path}")


def run_install_codex(args) -> int:

    if args.no_mcp:
        raise BadInputError("for codex, install-hooks registers the MCP server only: --no-mcp leaves nothing to do")
    if args.project:
        raise BadInputError("Codex reads MCP servers from ~/.codex/config.toml only: leave out --project")
    path = codex_config_path()
    changed = register_toml(path, Path("~").expanduser(), args.uninstall)
    if args.json:
        print_json({"mcp": {"config": str(path), "changed": changed}, "uninstall": args.uninstall})
    else:
        print_mcp(path, changed, args.uninstall)
    return 0
