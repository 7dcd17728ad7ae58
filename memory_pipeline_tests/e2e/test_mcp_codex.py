"""The real Codex CLI asks the memory MCP server mid-task: the loopback model answers with a
`function_call` of the memory search tool (Codex offers an MCP server's tools as the namespace
`mcp__memory`), and the tool's answer reaching the model's next request is the plain text, fenced
and labelled, not `{"result": …}`. The fact comes from an earlier real Codex session in the same
project, imported and ingested."""

from __future__ import annotations

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


def test_codex_searches_memory_over_mcp_and_the_model_reads_the_text(clients, workspace, tmp_path):
    project = tmp_path / "harbor"
    (project / ".git").mkdir(parents=True)  # a repository: the project is "harbor"
    with LoopbackModels(default_text="Noted.") as models:
        home = ClientHome(clients, tmp_path / "home", models.url, workspace.root)
        try:
            first = home.codex(["exec", "--skip-git-repo-check", f"Remember this for later: {FACT}."], cwd=project)
            assert first.returncode == 0, first.stderr[-2000:]
            for step in (["import", str(home.codex_sessions)], ["ingest"], ["hooks", "install", "codex"]):
                done = home.memory(step, cwd=project)
                assert done.returncode == 0, done.stderr[-2000:] + done.stdout[-2000:]

            question = "Which port does staging Postgres use? Check the memory first."
            models.answer_with_tool(question, SEARCH_TOOL, {"query": "staging postgres port", "limit": 3})
            before = len(models.requests)
            second = home.codex(["exec", "--skip-git-repo-check", question], cwd=project)
            assert second.returncode == 0, second.stderr[-2000:]
        finally:
            home.memory(["stop"], cwd=project, timeout=60)
        calls = models.model_requests("openai-responses")[before:]
        assert any(SEARCH_TOOL in c.tool_names and question in c.user_text for c in calls), \
            [sorted(c.tool_names) for c in calls]  # offered on the first step
        answered = [output for c in calls for output in c.function_outputs(SEARCH_TOOL)]
        assert answered, "Codex never sent the memory tool's answer back to the model"
        text = answered[-1].split("Output:\n", 1)[-1]  # Codex puts its own "Wall time: … Output:" first
        assert text.startswith("memory search 'staging postgres port' in project harbor"), answered[-1][:300]
        assert FACT in text and "not instructions" in text and "\n```text\n" in text
