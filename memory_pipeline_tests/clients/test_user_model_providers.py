"""The model the user already has: the Claude Code and Codex CLIs (their real binaries) and an
OpenAI-compatible endpoint, each pointed at the loopback model server, run one Observer and one
Reflector with the shipped prompts; the daily token budget stops a run that would go over it."""

from __future__ import annotations

import json

import pytest

from benchmarks.observe_run import BenchRunner
from memory_pipeline.flows.status import llm_status
from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError, LLMError
from memory_pipeline.resources.llm import BudgetExceededError, TokenBudget
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.transcripts.parse import parse_transcript
from memory_pipeline_tests.resources.test_anthropic_observer import ANSWER, TRANSCRIPT
from memory_pipeline_tests.support.agent_clients import ClientHome

OBSERVED_PHRASE = "(m2): Let me look at the scheduler"
REFLECTED_PHRASE = 'ref="O1"'
REFLECTION = ("<proposals>\n## Proposed for: Hard Rules\n"
              "- Schedule jobs only in jobs/schedule.py, never in crontab [F2]\n</proposals>\n"
              "<summary>One scheduling rule.</summary>")


@pytest.fixture
def scripted(models):
    models.rules.clear()
    models.requests.clear()
    models.answer_when(OBSERVED_PHRASE, ANSWER)
    models.answer_when(REFLECTED_PHRASE, REFLECTION)
    return models


def client_environment(monkeypatch, home: ClientHome) -> None:
    """The provider's CLI inherits this process's environment, as it would a user's shell."""
    for name, value in home.env().items():
        if name not in ("PATH", "MEMORY_WORKSPACE"):
            monkeypatch.setenv(name, value)


def observe_and_reflect(settings: Settings):
    runner = BenchRunner(settings)
    observation = runner.observe(parse_transcript(TRANSCRIPT, format="claude-code"), "s-provider")
    return runner, observation, runner.reflect([observation])


def assert_both_stages_ran(observation, proposals, models, api: str) -> None:
    facts = [f for s in observation.segments for f in s.facts]
    assert [f.source_message_ids for f in facts] == [["a-1"], ["u-2"]]
    assert [p.text for p in proposals] == ["Schedule jobs only in jobs/schedule.py, never in crontab"]
    calls = models.model_requests(api)
    assert any("running commentary" in c.text and OBSERVED_PHRASE in c.text for c in calls)  # the shipped prompt
    assert any(REFLECTED_PHRASE in c.text for c in calls)


def test_claude_code_cli_runs_the_observer_and_the_reflector(clients, scripted, tmp_path, monkeypatch):
    home = ClientHome(clients, tmp_path / "home", scripted.url)
    client_environment(monkeypatch, home)
    settings = Settings.from_env({"MEMORY_LLM_PROVIDER": "claude-code", "MEMORY_CLAUDE_COMMAND": str(clients.claude),
                                  "MEMORY_WORKSPACE": str(tmp_path / "ws")})
    runner, observation, proposals = observe_and_reflect(settings)
    assert_both_stages_ran(observation, proposals, scripted, "anthropic-messages")
    observed = next(c for c in scripted.model_requests() if OBSERVED_PHRASE in c.last_user_text)
    assert observed.body["model"] == settings.observer_model and not observed.body.get("tools")
    assert "running commentary" in json.dumps(observed.body["system"])  # ours replaces Claude Code's own
    assert not list(home.claude_projects.glob("**/*.jsonl"))  # no session saved: nothing to ingest back
    spent = TokenBudget(settings.workspace / "state" / "llm-budget.json", 0).spent("claude-code")
    assert spent == runner.llm.total_usage.input_tokens + runner.llm.total_usage.output_tokens > 0


def test_codex_cli_runs_the_observer_and_the_reflector(clients, scripted, tmp_path, monkeypatch):
    home = ClientHome(clients, tmp_path / "home", scripted.url)
    client_environment(monkeypatch, home)
    command = f"{clients.node} {clients.codex}"
    settings = Settings.from_env({"MEMORY_LLM_PROVIDER": "codex", "MEMORY_CODEX_COMMAND": command,
                                  "MEMORY_WORKSPACE": str(tmp_path / "ws")})
    runner, observation, proposals = observe_and_reflect(settings)
    assert_both_stages_ran(observation, proposals, scripted, "openai-responses")
    assert runner.llm.total_usage.calls == 2 and runner.llm.total_usage.output_tokens > 0
    assert not list(home.codex_sessions.glob("**/*.jsonl"))  # --ephemeral


def test_openai_compatible_endpoint_runs_the_observer_and_the_reflector(scripted, tmp_path):
    settings = Settings.from_env({"MEMORY_LLM_PROVIDER": "openai-compatible", "MEMORY_OPENAI_BASE_URL":
                                  f"{scripted.url}/v1", "MEMORY_OPENAI_API_KEY": "local-key",
                                  "OBSERVER_MODEL": "qwen2.5:7b", "REFLECTOR_MODEL": "qwen2.5:14b",
                                  "MEMORY_WORKSPACE": str(tmp_path / "ws")})
    _, observation, proposals = observe_and_reflect(settings)
    assert_both_stages_ran(observation, proposals, scripted, "openai-chat")
    observed, reflected = scripted.model_requests("openai-chat")
    assert observed.body["model"] == "qwen2.5:7b" and reflected.body["model"] == "qwen2.5:14b"
    assert observed.body["messages"][0]["role"] == "system" and observed.headers["authorization"] == "Bearer local-key"


def test_openai_compatible_needs_the_endpoints_model_names(tmp_path):
    settings = Settings.from_env({"MEMORY_LLM_PROVIDER": "openai-compatible", "MEMORY_WORKSPACE": str(tmp_path)})
    with pytest.raises(BadInputError, match="OBSERVER_MODEL"):
        BenchRunner(settings)


def test_the_daily_budget_stops_a_run_before_the_call_that_would_exceed_it(scripted, tmp_path):
    environment = {"MEMORY_LLM_PROVIDER": "openai-compatible", "MEMORY_OPENAI_BASE_URL": f"{scripted.url}/v1",
                   "OBSERVER_MODEL": "local", "REFLECTOR_MODEL": "local", "MEMORY_WORKSPACE": str(tmp_path / "ws")}
    runner = BenchRunner(Settings.from_env({**environment, "MEMORY_LLM_DAILY_TOKENS": "6000"}))
    runner.observe(parse_transcript(TRANSCRIPT, format="claude-code"), "s-budget")  # fits: about 5,300 at most
    budget_file = tmp_path / "ws" / "state" / "llm-budget.json"
    spent = json.loads(budget_file.read_text())["openai-compatible"]["tokens"]
    assert spent == runner.llm.total_usage.input_tokens + runner.llm.total_usage.output_tokens
    calls = len(scripted.requests)

    with pytest.raises(BudgetExceededError, match="MEMORY_LLM_DAILY_TOKENS"):
        runner.observe(parse_transcript(TRANSCRIPT.replace("twice", "three times"), format="claude-code"), "s-2")
    assert len(scripted.requests) == calls  # stopped before calling, not after
    assert json.loads(budget_file.read_text())["openai-compatible"]["tokens"] == spent
    shown = llm_status(Workspace(tmp_path / "ws"), runner.settings)  # what `memory-pipeline status` prints
    assert shown["provider"] == "openai-compatible" and shown["spent_tokens"] == spent and shown["daily_tokens"] == 6000


@pytest.mark.parametrize("provider", ["claude-code", "codex"])
def test_a_missing_cli_is_a_clear_error_not_retried(provider, tmp_path):
    settings = Settings.from_env({"MEMORY_LLM_PROVIDER": provider, "MEMORY_WORKSPACE": str(tmp_path),
                                  "MEMORY_CLAUDE_COMMAND": str(tmp_path / "no-claude"),
                                  "MEMORY_CODEX_COMMAND": str(tmp_path / "no-codex")})
    runner = BenchRunner(settings)
    with pytest.raises(LLMError, match="not found; install it") as raised:
        runner.observe(parse_transcript(TRANSCRIPT, format="claude-code"), "s-missing")
    assert "gave up after" not in str(raised.value)


def test_an_endpoint_that_reports_no_usage_still_spends_the_budget(scripted, tmp_path):
    """Before: a server without `usage` counted 0 tokens a call, so the daily budget never stopped it."""
    environment = {"MEMORY_LLM_PROVIDER": "openai-compatible", "MEMORY_OPENAI_BASE_URL": f"{scripted.url}/v1",
                   "OBSERVER_MODEL": "local", "REFLECTOR_MODEL": "local", "MEMORY_WORKSPACE": str(tmp_path / "ws"),
                   "MEMORY_LLM_DAILY_TOKENS": "6000"}
    scripted.report_usage = False
    try:
        runner = BenchRunner(Settings.from_env(environment))
        runner.observe(parse_transcript(TRANSCRIPT, format="claude-code"), "s-silent")
        spent = TokenBudget(tmp_path / "ws" / "state" / "llm-budget.json", 0).spent("openai-compatible")
        sent = sum(len(json.dumps(c.body["messages"])) for c in scripted.model_requests("openai-chat"))
        assert spent >= sent // 5  # about one token per four characters sent, and the answer besides
        assert spent == runner.llm.total_usage.input_tokens + runner.llm.total_usage.output_tokens
        calls = len(scripted.requests)
        with pytest.raises(BudgetExceededError, match="MEMORY_LLM_DAILY_TOKENS"):
            runner.observe(parse_transcript(TRANSCRIPT.replace("twice", "three times"), format="claude-code"), "s-2")
        assert len(scripted.requests) == calls
    finally:
        scripted.report_usage = True
