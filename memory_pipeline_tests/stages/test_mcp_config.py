"""The memory MCP server's entry in JSON and TOML client configs (pure)."""

from __future__ import annotations

import tomllib

import pytest

from memory_pipeline.errors import BadInputError
from memory_pipeline.stages.hooks.mcp_config import (
    add_json_server,
    add_toml_server,
    enable_project_server,
    remove_json_server,
    remove_toml_server,
    server_entry,
)

ENTRY = server_entry(["/opt/venv/bin/memory-pipeline"], "/home/me/ws")
CODEX = '''# my codex settings
model = "gpt-5"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

# the next table is mine too
[profiles.fast]
model = "gpt-5-mini"
'''


def test_json_install_keeps_other_servers_is_idempotent_and_uninstalls_only_ours():
    theirs = {"mcpServers": {"github": {"command": "gh-mcp"}}, "theme": "dark"}
    once = add_json_server(theirs, ENTRY, {"type": "stdio"})
    assert once["mcpServers"]["memory"] == {"type": "stdio", "command": "/opt/venv/bin/memory-pipeline",
                                            "args": ["mcp"], "env": {"MEMORY_WORKSPACE": "/home/me/ws"}}
    assert once["mcpServers"]["github"] == {"command": "gh-mcp"} and once["theme"] == "dark"
    assert add_json_server(once, ENTRY, {"type": "stdio"}) == once
    assert remove_json_server(once) == theirs
    assert remove_json_server(theirs) is theirs


def test_a_foreign_server_named_memory_is_refused_not_replaced():
    foreign = {"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}}
    with pytest.raises(BadInputError, match="not memory-pipeline's"):
        add_json_server(foreign, ENTRY)
    assert remove_json_server(foreign) is foreign
    with pytest.raises(BadInputError, match="expected an object"):
        add_json_server({"mcpServers": []}, ENTRY)


def test_enabling_the_project_server_in_claude_settings():
    assert enable_project_server({}, True) == {"enabledMcpjsonServers": ["memory"]}
    both = enable_project_server({"enabledMcpjsonServers": ["db"]}, True)
    assert both == {"enabledMcpjsonServers": ["db", "memory"]} and enable_project_server(both, True) == both
    assert enable_project_server(both, False) == {"enabledMcpjsonServers": ["db"]}
    assert enable_project_server({"enabledMcpjsonServers": ["memory"]}, False) == {}


def test_toml_install_keeps_the_text_around_it_and_uninstall_restores_it():
    once = add_toml_server(CODEX, ENTRY)
    parsed = tomllib.loads(once)
    assert parsed["mcp_servers"]["memory"] == {"command": "/opt/venv/bin/memory-pipeline", "args": ["mcp"],
                                               "env": {"MEMORY_WORKSPACE": "/home/me/ws"}}
    assert parsed["mcp_servers"]["docs"]["args"] == ["-y", "docs-mcp"] and parsed["model"] == "gpt-5"
    assert once.startswith(CODEX.rstrip("\n"))
    assert add_toml_server(once, ENTRY) == once
    assert remove_toml_server(once) == CODEX
    assert remove_toml_server(CODEX) == CODEX


def test_toml_ours_in_the_middle_keeps_the_comment_of_the_next_table():
    middle = CODEX.replace("# the next table", '[mcp_servers.memory]\ncommand = "/old/memory-pipeline"\n'
                           'args = ["mcp"]\n\n# the next table')
    updated = add_toml_server(middle, ENTRY)
    assert "/old/memory-pipeline" not in updated and "# the next table is mine too\n[profiles.fast]" in updated
    assert tomllib.loads(updated)["profiles"]["fast"]["model"] == "gpt-5-mini"
    assert tomllib.loads(remove_toml_server(updated)) == tomllib.loads(CODEX)


def test_bad_or_foreign_toml_is_left_unchanged():
    with pytest.raises(BadInputError, match="not valid TOML"):
        add_toml_server("model = \n", ENTRY)
    foreign = '[mcp_servers.memory]\ncommand = "npx"\nargs = ["server-memory"]\n'
    with pytest.raises(BadInputError, match="not memory-pipeline's"):
        add_toml_server(foreign, ENTRY)
    assert remove_toml_server(foreign) == foreign
