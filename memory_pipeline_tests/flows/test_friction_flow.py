"""The friction flow with a model that words the fixes (replayed answers, prompts/friction.md):
the model's wording is staged, the evidence comes from the finding, an unusable answer is asked
again, a finding the model leaves out is not staged."""

from __future__ import annotations

from datetime import datetime, timezone

from memory_pipeline.flows.friction.analysis import analyse_friction
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.embedding.embedder import get_embedder
from memory_pipeline.resources.llm import LLMClient
from memory_pipeline_tests.support.friction_sessions import ingest_sessions, plan
from memory_pipeline_tests.support.review_fixtures import proposal_store, redis_server, redis_store  # noqa: F401

DAY = "2026-11-21"
WORDED = ('<fix ref="X1"><title>uv only</title><change>Install Python packages with `uv pip install` or '
          '`uv add`; never run `pip install`.</change></fix>')


def test_a_model_words_the_fix_and_the_evidence_stays_the_findings(workspace, proposal_store, tmp_path,
                                                                     queued_provider):
    workspace.memory_md.write_text("# MEMORY\n\n## Hard Rules\n\n- Never force-push main.\n")
    ingest_sessions(workspace, proposal_store.store, tmp_path, plan(tmp_path / "web"))
    queued_provider.enqueue("I think the user is frustrated.", WORDED)
    report, staged = analyse_friction(
        workspace, DAY, fixes=proposal_store, embedder=get_embedder(), llm=LLMClient(queued_provider, None),
        prompt=load_prompt("friction"), model="claude-sonnet-4-5", min_observations=10, min_sessions=2,
        today=DAY, now=datetime(2026, 11, 22, 7, 0, tzinfo=timezone.utc))
    first, again = queued_provider.calls
    assert first["task"] == "friction" and "Never force-push main." in first["prompt"]
    assert "no, use uv not pip" in first["prompt"] and 'ref="X2"' in first["prompt"]
    assert "could not be used" in again["prompt"] and report.usage.calls == 2
    [fix] = staged.staged
    uv = report.findings[0]
    assert fix.text.startswith("Install Python packages with `uv pip install`") and fix.title == "uv only"
    assert fix.sessions == uv.sessions == ["s01", "s04", "s07"]
    assert fix.source_message_ids == uv.message_ids and fix.evidence == [e.line() for e in uv.evidence]
    assert report.not_staged == {report.findings[1].pattern: "the model judged it not worth a fix"}


def test_only_the_runs_most_severe_patterns_are_worded(workspace, proposal_store, tmp_path, queued_provider,
                                                      monkeypatch):
    import memory_pipeline.flows.friction.analysis as friction

    monkeypatch.setattr(friction, "MAX_WORDED", 1)  # the same week, with room for one fix
    ingest_sessions(workspace, proposal_store.store, tmp_path, plan(tmp_path / "web"))
    queued_provider.enqueue(WORDED)
    report, staged = analyse_friction(
        workspace, DAY, fixes=proposal_store, embedder=get_embedder(), llm=LLMClient(queued_provider, None),
        prompt=load_prompt("friction"), model="claude-sonnet-4-5", min_observations=10, min_sessions=2,
        today=DAY, now=datetime(2026, 11, 22, 7, 0, tzinfo=timezone.utc))
    [call] = queued_provider.calls
    assert 'ref="X1"' in call["prompt"] and 'ref="X2"' not in call["prompt"]  # the second is not sent
    assert len(report.findings) >= 2 and [p.id for p in staged.staged] == report.staged and len(report.staged) == 1
    assert report.not_staged[report.findings[1].pattern] == "not among the run's 1 most severe patterns"
