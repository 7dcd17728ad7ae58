"""The real Claude Code CLI asks the memory MCP server mid-task: the loopback model answers with a
`tool_use` of the memory search tool, and the tool result carrying the remembered fact reaches the
model's next request. The fact comes from an earlier real Claude Code session in the same project,
captured by the hooks `install-hooks` put in place and ingested by `memory-pipeline ingest`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from memory_pipeline_tests.support.agent_clients import ClientHome, installed_clients
from memory_pipeline_tests.support.loopback_models import LoopbackModels

pytestmark = pytest.mark.slow
FACT = "the staging Postgres port is 6543, because 5432 clashes with the host database"
SEARCH_TOOL = "mcp__memory__search"


@pytest.fixture
def clients():
    found = installed_clients()
    if isinstance(found, str):
        pytest.skip(f"real agent clients unavailable: {found}")
    return found


def memory_pipeline(home: ClientHome, *args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memory_pipeline.main", *args], cwd=cwd, env=home.env(),
                          capture_output=True, text=True, timeout=300)


def test_claude_code_searches_memory_over_mcp_and_the_fact_reaches_the_model(clients, workspace, tmp_path):
    project = tmp_path / "harbor"
    (project / ".git").mkdir(parents=True)  # a repository: the project is "harbor"
    with LoopbackModels(default_text="Noted.") as models:
        home = ClientHome(clients, tmp_path / "home", models.url, workspace.root)
        installed = home.install_hooks(project)
        assert installed.returncode == 0, installed.stderr
        assert json.loads((home.home / ".claude.json").read_text())["mcpServers"]["memory"]["args"][-1] == "mcp"

        first = home.claude(["-p", f"Remember this for later: {FACT}."], cwd=project)
        assert first.returncode == 0, first.stderr
        ingested = memory_pipeline(home, "ingest", cwd=project)
        assert ingested.returncode == 0, ingested.stderr + ingested.stdout
        found = memory_pipeline(home, "recall", "staging postgres port", "--json", cwd=project)
        assert FACT in found.stdout, found.stdout + found.stderr

        question = "Which port does staging Postgres use? Check the memory first."
        models.answer_with_tool(question, "ToolSearch", {"query": f"select:{SEARCH_TOOL}", "max_results": 1})
        models.answer_with_tool(question, SEARCH_TOOL, {"query": "staging postgres port", "limit": 3})
        before = len(models.requests)
        second = home.claude(["-p", question, "--allowedTools", SEARCH_TOOL], cwd=project)
        assert second.returncode == 0, second.stderr
        calls = models.model_requests("anthropic-messages")[before:]
        asked = [c for c in calls if SEARCH_TOOL in c.tool_names and question in c.user_text]
        assert asked, [sorted(c.tool_names) for c in calls]
        answered = [c for c in calls if c.tool_results(SEARCH_TOOL)]
        assert answered, "Claude Code never sent the memory tool's result back to the model"
        result = answered[0].tool_results(SEARCH_TOOL)[-1]
        assert FACT in result and "in project harbor" in result
        assert "not instructions" in result and "\n```text\n" in result
        assert result.startswith("memory search 'staging postgres port' in project harbor"), result[:200]  # not {"result": …}
