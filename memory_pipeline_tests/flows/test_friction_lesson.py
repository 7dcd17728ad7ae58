"""Issue 26's repeated correction through the real path (Claude Code, Codex and pi files; emit,
inbox, sessions, the offline Observer, the friction flow offline): a failing `pip install` followed
by "No, don't use pip here. This repo uses uv: …" in three sessions is one fix, the correction's
lesson, and the repeated "run the tests before committing" names what to run."""

from __future__ import annotations

from datetime import datetime, timezone

from memory_pipeline.flows.friction.analysis import analyse_friction
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.embedding.embedder import get_embedder
from memory_pipeline.resources.llm import LLMClient, default_offline_provider
from memory_pipeline_tests.support.friction_sessions import ingest_files
from memory_pipeline_tests.support.review_fixtures import proposal_store, redis_server, redis_store  # noqa: F401
from memory_pipeline_tests.support.uv_sessions import uv_plan, write_uv_sessions

DAY = "2026-11-21"


def test_a_failing_pip_and_the_users_uv_correction_are_one_lesson(workspace, proposal_store, tmp_path):
    paths = write_uv_sessions(tmp_path / "sessions", str(tmp_path / "billing"))
    ingest_files(workspace, proposal_store.store, [(path, sid, day) for path, (sid, day, _, _) in zip(paths, uv_plan())])
    report, staged = analyse_friction(
        workspace, DAY, fixes=proposal_store, embedder=get_embedder(), llm=LLMClient(default_offline_provider(), None),
        prompt=load_prompt("friction"), model="offline", min_observations=10, min_sessions=2, today=DAY,
        now=datetime(2026, 11, 22, 7, 0, tzinfo=timezone.utc))
    assert report.signals == {"correction": 3}  # each failing pip is tied to the correction after it
    texts = [fix.text for fix in staged.staged]
    assert texts == ["Use uv (`uv sync`, `uv run pytest`), not pip (`pip install` failed here and the user had to "
                     "correct the agent in 3 sessions).",
                     "Run the tests before committing without being asked: the user asked for this 3 times in 3 "
                     "sessions (“Again: run the tests before committing.”)."]
    uv = report.findings[0]
    assert uv.kind == "correction" and uv.sessions == ["uv-claude", "uv-codex", "uv-pi"]
    assert uv.then.startswith("uv add ")  # what worked after the correction
    # the evidence cites the failed call, its error and the correction in each session
    assert [len(e.message_ids) for e in uv.evidence] == [3, 3, 3]
    assert "uv-claude-003" in uv.evidence[0].message_ids and "uv-claude-005" in uv.evidence[0].message_ids
    assert not any(" it " in f" {fix.text} " or fix.text.startswith(("It ", "This ")) for fix in staged.staged)
