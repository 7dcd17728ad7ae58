"""Registering the memory MCP server in an agent's config (pure): JSON documents with
`mcpServers` (Claude Code's `~/.claude.json` at user scope, or its `projects[<folder>]` entry at
local scope, as `claude mcp add --scope user|local` writes them; a project's `.mcp.json`, which
earlier versions wrote and uninstall still cleans) and Codex's `config.toml` table
`[mcp_servers.memory]`.

Only our entry is touched: it is recognised by its command (memory-pipeline … mcp), a server of
another tool under the same name is refused rather than replaced, and every other server, key,
comment and blank line stays as it was.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib

from memory_pipeline.errors import BadInputError

SERVER_NAME = "memory"
_TABLE = re.compile(r"^\s*\[\s*mcp_servers\s*\.\s*(?:memory|\"memory\"|'memory')\s*(?:\.[^\]]*)?\]\s*(?:#.*)?$")
_ANY_TABLE = re.compile(r"^\s*\[")


def server_entry(command: list[str], workspace: str | None) -> dict:
    """The server as every client writes it: an executable, its arguments, and the workspace when set."""
    entry: dict = {"command": command[0], "args": [*command[1:], "mcp"]}
    if workspace:
        entry["env"] = {"MEMORY_WORKSPACE": workspace}
    return entry


def is_ours(entry: object) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    words = [entry["command"], *(str(a) for a in entry.get("args") or [])]
    return any(re.search(r"memory[-_]pipeline", w) for w in words) and words[-1] == "mcp"


def _servers(document: dict, key: str) -> dict:
    servers = document.get(key, {})
    if not isinstance(servers, dict):
        raise BadInputError(f"'{key}' is a {type(servers).__name__}, expected an object; left unchanged")
    return servers


def _check_free(existing: object, where: str) -> None:
    if existing is not None and not is_ours(existing):
        raise BadInputError(f"{where} already has an MCP server named {SERVER_NAME!r} that is not memory-pipeline's; "
                            "left unchanged (rename or remove it first)")


def add_json_server(document: dict, entry: dict, extra: dict | None = None) -> dict:
    """`document` with `mcpServers.memory` set to `entry` (plus `extra` keys, e.g. Claude Code's "type")."""
    servers = _servers(document, "mcpServers")
    _check_free(servers.get(SERVER_NAME), "the config")
    updated = copy.deepcopy(document)
    updated["mcpServers"] = {**servers, SERVER_NAME: {**(extra or {}), **entry}}
    return updated


def remove_json_server(document: dict) -> dict:
    """`document` without our server; an `mcpServers` left empty by that goes too."""
    servers = _servers(document, "mcpServers")
    if not is_ours(servers.get(SERVER_NAME)):
        return document
    updated = copy.deepcopy(document)
    del updated["mcpServers"][SERVER_NAME]
    if not updated["mcpServers"]:
        del updated["mcpServers"]
    return updated


def _project_entry(document: dict, folder: str) -> dict:
    projects = document.get("projects", {})
    if not isinstance(projects, dict):
        raise BadInputError("'projects' is not an object; left unchanged")
    entry = projects.get(folder, {})
    if not isinstance(entry, dict):
        raise BadInputError(f"'projects' entry for {folder} is not an object; left unchanged")
    return entry


def add_local_server(document: dict, folder: str, entry: dict) -> dict:
    """`~/.claude.json` with our server at Claude Code's local scope: `projects[folder].mcpServers`
    (private to this user and this project, never in a file the team shares)."""
    current = _project_entry(document, folder)
    updated = copy.deepcopy(document)
    updated.setdefault("projects", {})[folder] = add_json_server(current, entry, {"type": "stdio"})
    return updated


def remove_local_server(document: dict, folder: str) -> dict:
    """Our local-scope server removed; a project entry (and `projects`) left empty by that goes too."""
    current = _project_entry(document, folder)
    kept = remove_json_server(current)
    if kept is current:
        return document
    updated = copy.deepcopy(document)
    if kept:
        updated["projects"][folder] = kept
    else:
        del updated["projects"][folder]
        if not updated["projects"]:
            del updated["projects"]
    return updated


def enable_project_server(settings: dict, enable: bool) -> dict:
    """Claude Code's settings.json `enabledMcpjsonServers` with (or without) ours: installing from the
    CLI is the user's approval of the project's `.mcp.json` entry."""
    listed = settings.get("enabledMcpjsonServers", [])
    if not isinstance(listed, list):
        raise BadInputError("settings 'enabledMcpjsonServers' is not a list; left unchanged")
    wanted = [*listed, SERVER_NAME] if enable and SERVER_NAME not in listed else \
        [n for n in listed if enable or n != SERVER_NAME]
    if wanted == listed:
        return settings
    updated = copy.deepcopy(settings)
    if wanted:
        updated["enabledMcpjsonServers"] = wanted
    else:
        updated.pop("enabledMcpjsonServers", None)
    return updated


def parse_toml(text: str, where: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInputError(f"{where} is not valid TOML ({exc}); left unchanged") from None


# Codex starts MCP servers alongside its first step and binds only those ready within a ~1 s grace:
# a server marked `required` is waited for (up to `startup_timeout_sec`), so its tools are there
# from the first step; `codex exec` stops with an error if it cannot start.
CODEX_STARTUP = {"required": True, "startup_timeout_sec": 30}


def codex_entry(entry: dict) -> dict:
    """The server as Codex gets it: waited for before the first step (CODEX_STARTUP)."""
    return {**entry, **CODEX_STARTUP}


def toml_table(entry: dict) -> str:
    """`[mcp_servers.memory]` for Codex's config.toml (JSON strings, numbers and booleans are valid
    TOML values)."""
    lines = [f"[mcp_servers.{SERVER_NAME}]", f"command = {json.dumps(entry['command'])}",
             f"args = [{', '.join(json.dumps(a) for a in entry['args'])}]"]
    lines += [f"{key} = {json.dumps(entry[key])}" for key in CODEX_STARTUP if key in entry]
    if entry.get("env"):
        pairs = ", ".join(f"{key} = {json.dumps(value)}" for key, value in entry["env"].items())
        lines.append(f"env = {{ {pairs} }}")
    return "\n".join(lines) + "\n"


def _without_our_table(text: str) -> str:
    """`text` less the `[mcp_servers.memory…]` tables (their lines up to the next table header)."""
    kept: list[str] = []
    ours: list[str] | None = None  # the lines of one of our tables, while inside it
    for line in text.splitlines(keepends=True):
        if _ANY_TABLE.match(line):
            if ours is not None:  # comments and blank lines just before the next table are that table's
                kept += _trailing_notes(ours)
            ours = [] if _TABLE.match(line) else None
        if ours is None:
            kept.append(line)
        else:
            ours.append(line)
    return "".join(kept)


def _trailing_notes(lines: list[str]) -> list[str]:
    notes: list[str] = []
    for line in reversed(lines[1:]):
        if line.strip() and not line.lstrip().startswith("#"):
            break
        notes.insert(0, line)
    return notes


def add_toml_server(text: str, entry: dict, where: str = "config.toml") -> str:
    existing = parse_toml(text, where).get("mcp_servers", {})
    _check_free(existing.get(SERVER_NAME) if isinstance(existing, dict) else None, where)
    base = _without_our_table(text).rstrip("\n")
    updated = (base + "\n\n" if base else "") + toml_table(entry)
    if parse_toml(updated, where).get("mcp_servers", {}).get(SERVER_NAME) != entry:
        raise BadInputError(f"{where}: the memory server could not be written cleanly (an inline mcp_servers "
                            "table?); left unchanged")
    return updated


def remove_toml_server(text: str, where: str = "config.toml") -> str:
    existing = parse_toml(text, where).get("mcp_servers", {})
    if not isinstance(existing, dict) or not is_ours(existing.get(SERVER_NAME)):
        return text
    updated = _without_our_table(text).rstrip("\n") + "\n"
    parse_toml(updated, where)
    return updated if updated.strip() else ""
