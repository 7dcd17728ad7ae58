"""The memory MCP server's entry as `hooks install` writes it into each client's config (where it
goes: flows/hooks/install.py)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from memory_pipeline.config import workspace_override
from memory_pipeline.stages.hooks.mcp_config import server_entry


def mcp_command() -> list[str]:
    """This Python without site (`-S`) running the stdlib-only MCP door, memory_pipeline/mcp_entry.py,
    by its absolute path: it answers `initialize` in the time of a Python start (docs/mcp.md)."""
    from memory_pipeline import mcp_entry

    return [sys.executable, "-S", str(Path(mcp_entry.__file__).resolve())]


def cli_command() -> list[str]:
    """The installed console script, else this Python running the package: what the pi extension runs
    (`brief`, `emit`), never the MCP door, which speaks only MCP."""
    beside = Path(sys.executable).parent / "memory-pipeline"
    found = str(beside) if beside.is_file() else shutil.which("memory-pipeline")
    return [found] if found else [sys.executable, "-m", "memory_pipeline.main"]


def mcp_entry() -> dict:
    workspace = workspace_override()
    return server_entry(mcp_command(), str(Path(workspace).expanduser().resolve()) if workspace else None)
