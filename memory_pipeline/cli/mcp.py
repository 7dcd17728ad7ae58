"""`memory-pipeline mcp`: the memory tools as an MCP server on stdio (for Claude Code, Codex, Cursor, pi)."""

from __future__ import annotations


def register(sub) -> None:
    parser = sub.add_parser(
        "mcp", help="serve the memory tools (search, get, timeline, trace, brief) to an agent over MCP (stdio)",
        description="A read-only MCP server on stdin/stdout. `install-hooks` registers it with Claude Code and "
        "Codex; see docs/mcp.md for Cursor and pi. The project is the client's root, else the current folder.")
    parser.set_defaults(handler=run_mcp)


def run_mcp(args) -> int:
    from memory_pipeline import mcp_entry

    return mcp_entry.main()
