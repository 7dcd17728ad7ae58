"""The real Codex sees the memory MCP tools on its first step (issue 49): `hooks install codex`
marks the server `required`, so Codex waits for it instead of "omitting pending optional MCP server
memory" from the first request's tools."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline_tests.support.agent_clients import ClientHome
from memory_pipeline_tests.support.loopback_models import LoopbackModels

PROMPT = "What do we know about the orders-api deploy?"


def memory_tools(request) -> set[str]:
    """The memory server's tools in one Responses API request (Codex groups an MCP server's tools
    in a `namespace` tool named `mcp__<server>`)."""
    return {tool.get("name") for group in request.body.get("tools") or []
            if group.get("type") == "namespace" and group.get("name") == "mcp__memory"
            for tool in group.get("tools") or []}


def test_codex_has_the_memory_tools_in_its_first_request(clients, models: LoopbackModels, module_tmp: Path):
    home = ClientHome(clients, module_tmp / "home-codex", models.url, module_tmp / "ws-codex")
    project = module_tmp / "orders-api"
    project.mkdir()
    try:
        installed = home.memory(["hooks", "install", "codex"], cwd=project)
        assert installed.returncode == 0, installed.stderr
        before = len(models.requests)
        done = home.codex(["exec", "--skip-git-repo-check", PROMPT], cwd=project)
        assert done.returncode == 0, done.stderr
        first = next(r for r in models.model_requests("openai-responses")[before:] if PROMPT in r.text)
        assert {"search", "get", "timeline"} <= memory_tools(first), [t.get("name") for t in first.body["tools"]]
    finally:
        home.memory(["stop"], cwd=project, timeout=60)
