"""The memory MCP server as `hooks install` writes it into a client's config (the stdlib-only door),
for the MCP SDK's own client over stdio."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp import StdioServerParameters

from memory_pipeline.cli.hooks.mcp import mcp_entry


def door(workspace, cwd: Path, **env) -> StdioServerParameters:
    """The door over `workspace`, started in `cwd` (its project when the client lists no root)."""
    entry = mcp_entry()
    env = dict(os.environ, MEMORY_WORKSPACE=str(workspace.root), PYTHONPATH=os.pathsep.join(sys.path), **env)
    return StdioServerParameters(command=entry["command"], args=entry["args"], env=env, cwd=str(cwd))
