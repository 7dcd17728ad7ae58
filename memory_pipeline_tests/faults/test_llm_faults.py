"""The Observer's provider failing, timing out, answering malformed or oversized text.

The Anthropic path runs against the loopback Messages API server; each case is compared with
a clean run of the same input that got only good answers.
"""

from __future__ import annotations

import json

import pytest

from memory_pipeline_tests.faults.compare import assert_same_state, read_state
from memory_pipeline_tests.faults.harness import DAYS, emit_inputs, ingest_here, using_workspace, write_inputs
from memory_pipeline_tests.support.anthropic_server import AnthropicServer

pytestmark = pytest.mark.slow
SESSIONS = 4  # two per day
GOOD = """<observations>
Date: 2026-11-18

<segment>
<title>Connection pool</title>
<narrative>Debugged the connection pool and raised its size.</narrative>
<facts>
* 🔴 (08:05) The pool was too small for the workers [m1]
* 🟡 (08:10) The tests pass again after the fix [m2]
</facts>
</segment>
</observations>
<current-task>Primary: the connection pool</current-task>
"""


LEDGER_SYSTEM = "You type facts for an append-only event ledger"  # prompts/ledger.md: not what these tests fault
LEDGER_TYPING = json.dumps([{"ref": f"F{n}", "type": "fact", "priority": "P2", "entity": None, "tags": [],
                             "change": False} for n in range(1, 41)])


def anthropic_env(server: AnthropicServer, **extra: str) -> dict[str, str]:
    server.standing[LEDGER_SYSTEM] = LEDGER_TYPING  # ingest_job ends in the ledger, which types facts
    return {"MEMORY_LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": server.api_key, "ANTHROPIC_BASE_URL": server.url,
            **extra}


def observer_requests(server: AnthropicServer) -> list:
    return [r for r in server.requests if not str(r.body.get("system") or "").startswith(LEDGER_SYSTEM)]


@pytest.fixture(scope="module")
def llm_inputs(fault_root):
    return write_inputs(fault_root / "inputs-llm", SESSIONS // 2, seed=53)


@pytest.fixture(scope="module")
def clean_llm(session_workspaces, llm_inputs):
    ws = session_workspaces.new("clean-llm")
    emit_inputs(ws, llm_inputs)
    with AnthropicServer() as server:
        for _ in range(SESSIONS):
            server.reply_text(GOOD)
        report = ingest_here(ws, **anthropic_env(server))
    assert report.success, report.as_dict()
    with using_workspace(ws):
        return read_state(ws)


def fail_with(server: AnthropicServer, case: str) -> str:
    """Script the fault for the first session; returns the text the failed run must report."""
    if case == "failing":
        for _ in range(4):
            server.reply_error(500)
        return "gave up after 4 attempts: anthropic claude-haiku-4-5 (observer): HTTP 500"
    if case == "timeout":
        for _ in range(4):
            server.reply_delay(5)
        return "gave up after 4 attempts: anthropic claude-haiku-4-5 (observer): request timed out"
    if case == "malformed":
        server.reply_text("Sorry, I cannot summarize this session.")
        server.reply_text("<observation>still not the format")
        return "answer failed validation twice"
    server.reply_text("🔴 " + "x" * 250_000)  # oversized, twice
    server.reply_text("🔴 " + "y" * 250_000)
    return "over the limit of 200000"


@pytest.mark.parametrize("case", ["failing", "timeout", "malformed", "oversized"])
def test_llm_fault_fails_clearly_then_completes_on_rerun(case, workspaces, llm_inputs, clean_llm):
    ws = workspaces.new(case)
    emit_inputs(ws, llm_inputs)
    with AnthropicServer() as server:
        expected = fail_with(server, case)
        failed = ingest_here(ws, **anthropic_env(server, MEMORY_LLM_TIMEOUT_SECONDS="0.5"))
        assert not failed.success
        assert failed.days[0].day == DAYS[0] and expected in (failed.days[0].error or ""), failed.as_dict()
        assert "Observer failed" in failed.days[0].error
        if case in ("malformed", "oversized"):
            first, second = (r.body["messages"][0]["content"] for r in observer_requests(server)[:2])
            assert second.startswith(first) and "could not be used" in second  # re-asked once, then gave up
        for _ in range(SESSIONS):
            server.reply_text(GOOD)
        again = ingest_here(ws, **anthropic_env(server))
        assert again.success, again.as_dict()
        assert server.script == []
    cached = [json.loads(p.read_text()) for p in (ws.state / "llm-cache").rglob("*.json")]
    observed = [c for c in cached if c["response"]["text"] != LEDGER_TYPING]
    assert len(observed) == SESSIONS and all(c["response"]["text"] == GOOD for c in observed)
    with using_workspace(ws):
        assert_same_state(read_state(ws), clean_llm)


def test_oversized_once_is_reasked(workspaces, llm_inputs, clean_llm):
    ws = workspaces.new("o")
    emit_inputs(ws, llm_inputs)
    with AnthropicServer() as server:
        server.reply_text("🔴 " + "x" * 250_000)
        for _ in range(SESSIONS):
            server.reply_text(GOOD)
        report = ingest_here(ws, **anthropic_env(server))
        assert report.success and len(observer_requests(server)) == SESSIONS + 1, report.as_dict()
    with using_workspace(ws):
        assert_same_state(read_state(ws), clean_llm)


def test_the_daily_token_budget_stops_the_observer_before_it_calls(workspaces, llm_inputs, clean_llm):
    """A run that would go over MEMORY_LLM_DAILY_TOKENS fails loud, calls nothing and writes no
    observation; with the budget raised the rerun ends where a clean run does."""
    ws = workspaces.new("budget")
    emit_inputs(ws, llm_inputs)
    with AnthropicServer() as server:
        failed = ingest_here(ws, **anthropic_env(server, MEMORY_LLM_DAILY_TOKENS="1000"))
        error = failed.days[0].error or ""
        assert not failed.success and "Observer failed" in error, failed.as_dict()
        assert "token budget would be exceeded" in error and "MEMORY_LLM_DAILY_TOKENS" in error
        assert observer_requests(server) == [] and not list((ws.root / "observations").rglob("*.json"))
        for _ in range(SESSIONS):
            server.reply_text(GOOD)
        again = ingest_here(ws, **anthropic_env(server))
        assert again.success, again.as_dict()
    spent = json.loads((ws.state / "llm-budget.json").read_text())["anthropic"]["tokens"]
    assert spent > 0
    with using_workspace(ws):
        assert_same_state(read_state(ws), clean_llm)
