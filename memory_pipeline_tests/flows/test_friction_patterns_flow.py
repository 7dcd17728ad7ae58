"""Friction's other patterns through the real path (emit → sessions → offline Observer → friction):
a window too small for recurrence across sessions is still searched within each session, and a
MEMORY.md line that recent sessions contradict becomes a fix."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memory_pipeline.flows.friction.analysis import analyse_friction
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.embedding.embedder import get_embedder
from memory_pipeline.resources.llm import LLMClient, default_offline_provider
from memory_pipeline_tests.support.friction_sessions import FILLER, ingest_sessions
from memory_pipeline_tests.support.review_fixtures import proposal_store, redis_server, redis_store  # noqa: F401

pytestmark = pytest.mark.slow
DAY = "2026-11-21"
SUMMARY = "Summary: we are splitting main.ts into modes; the plan is in docs/refactor.md"


def analyse(workspace, proposal_store, min_observations: int = 10):
    return analyse_friction(
        workspace, DAY, fixes=proposal_store, embedder=get_embedder(), llm=LLMClient(default_offline_provider(), None),
        prompt=load_prompt("friction"), model="offline", min_observations=min_observations, min_sessions=2,
        today=DAY, now=datetime(2026, 11, 22, 7, 0, tzinfo=timezone.utc))


def test_a_small_window_still_finds_what_one_session_shows(workspace, proposal_store, tmp_path):
    steps = [("user", "read src/main.ts in full and plan the split"), ("compact", SUMMARY),
             ("user", "alright, where were we?"), *FILLER, ("compact", SUMMARY),
             ("user", "remember the plan in docs/refactor.md, you read it before"),
             ("user", "you need to read the session class in full"), ("user", "now read renderer.ts in full")]
    ingest_sessions(workspace, proposal_store.store, tmp_path, [("s1", "2026-11-20", str(tmp_path / "pi"), steps)])
    report, staged = analyse(workspace, proposal_store)
    assert report.skipped.startswith("only 1 observation in the window")
    assert "only patterns within one session were looked for" in report.skipped
    assert [f.kind for f in report.findings] == ["instruction", "compaction"]
    by_kind = {p.friction_kind: p for p in staged.staged}
    compaction = by_kind["compaction"]
    assert (compaction.target, compaction.target_dir) == ("CLAUDE.md", str(tmp_path / "pi"))
    assert compaction.sessions == ["s1"]
    assert "after 2 of 2 compactions in 1 session" in compaction.text and "`docs/refactor.md`" in compaction.text
    assert by_kind["instruction"].source_message_ids == report.findings[0].message_ids
    review = workspace.review_md.read_text()
    assert compaction.id in review and by_kind["instruction"].id in review
    assert "*Skipped: only 1 observation" in (workspace.memory_dir / f"{DAY}.md").read_text()


def test_a_memory_line_contradicted_in_two_sessions_becomes_a_fix(workspace, proposal_store, tmp_path):
    workspace.memory_md.write_text("# MEMORY\n\n## Hard Rules\n\n- Use Node 18 for the web app.\n")
    web = str(tmp_path / "web")
    sessions = [(f"s{n}", f"2026-11-{14 + n}", web, [("user", text), *FILLER])
                for n, text in enumerate(["We moved the web app to node 20", "Build the web app with Node 20",
                                          "Add a changelog entry"], start=1)]
    ingest_sessions(workspace, proposal_store.store, tmp_path, sessions)
    report, staged = analyse(workspace, proposal_store, min_observations=3)
    assert report.skipped is None
    [fix] = [p for p in staged.staged if p.friction_kind == "contradiction"]
    assert (fix.section, fix.sessions, fix.pattern) == ("Hard Rules", ["s1", "s2"], "Use Node 18 for the web app.")
    assert fix.text.startswith("Now: Build the web app with Node 20")
