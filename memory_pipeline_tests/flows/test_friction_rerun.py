"""A friction run stopped part way (kill -9 after the fixes were claimed, or after they were saved
and before REVIEW.md and the daily log were written), then run again, ends as a clean run does:
the same fixes staged under the same ids, in REVIEW.md, and the same daily-log section; a plain
re-run of the day too. Before, the re-run logged every fix as "already proposed" and staged none.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memory_pipeline.flows.friction import staging as friction_stage
from memory_pipeline.flows.friction.analysis import analyse_friction
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.embedding.embedder import get_embedder
from memory_pipeline.resources.llm import LLMClient, default_offline_provider
from memory_pipeline.resources.redis.proposals import ProposalStore
from memory_pipeline.stages.proposal_ids import ANY_ID
from memory_pipeline_tests.support.friction_sessions import ingest_sessions, plan
from memory_pipeline_tests.support.review_fixtures import proposal_store, redis_server, redis_store  # noqa: F401

pytestmark = pytest.mark.slow
DAY = "2026-11-21"


class Killed(BaseException):
    """Stands for kill -9: nothing after the raise runs, no `except Exception` catches it."""


def analyse(workspace, fixes):
    return analyse_friction(
        workspace, DAY, fixes=fixes, embedder=get_embedder(), llm=LLMClient(default_offline_provider(), None),
        prompt=load_prompt("friction"), model="offline", min_observations=10, min_sessions=2, today=DAY,
        now=datetime(2026, 11, 22, 7, 0, tzinfo=timezone.utc))


def numbered(text: str) -> str:
    """Ids without their random part (a clean run and a re-run draw different ones)."""
    return ANY_ID.sub(lambda m: m.group("id")[:14], text)


def outcome(workspace, fixes) -> tuple[list[tuple[str, str]], str, str]:
    """The staged fixes (id, text), REVIEW.md's friction lines and the daily log's friction section."""
    staged = sorted((numbered(p.id), p.text) for p in fixes.pending() if p.is_fix)
    review = "\n".join(numbered(line) for line in workspace.review_md.read_text().splitlines() if "`f-" in line)
    log = (workspace.memory_dir / f"{DAY}.md").read_text()
    return staged, review, numbered(log[log.index("### 🧭 Friction"):])


def kill_after_claiming(monkeypatch):
    monkeypatch.setattr(ProposalStore, "save", lambda self, proposal: (_ for _ in ()).throw(Killed()))


def kill_after_saving(monkeypatch):
    monkeypatch.setattr(friction_stage, "render_review", lambda *a, **k: (_ for _ in ()).throw(Killed()))


@pytest.mark.parametrize("kill", [None, kill_after_claiming, kill_after_saving],
                         ids=["plain-rerun", "killed-after-claiming", "killed-after-saving"])
def test_a_rerun_after_a_stopped_friction_run_equals_a_clean_run(workspace, proposal_store, tmp_path, monkeypatch,
                                                                  kill):
    ingest_sessions(workspace, proposal_store.store, tmp_path, plan(tmp_path / "web"))
    log_before = (workspace.memory_dir / f"{DAY}.md").read_text()
    _, staged = analyse(workspace, proposal_store)
    clean = outcome(workspace, proposal_store)
    assert len(clean[0]) == len(staged.staged) >= 2 and "already proposed" not in clean[2]

    # the same day again, from the start: an empty review store, the daily log as ingest left it
    proposal_store.store.client.flushdb()
    workspace.review_md.unlink()
    (workspace.memory_dir / f"{DAY}.md").write_text(log_before)
    if kill:
        with monkeypatch.context() as patched:
            kill(patched)
            with pytest.raises(Killed):
                analyse(workspace, proposal_store)
    else:
        analyse(workspace, proposal_store)
    report, _ = analyse(workspace, proposal_store)
    assert outcome(workspace, proposal_store) == clean
    assert [numbered(fid) for fid in report.staged] == [fid for fid, _ in clean[0]] and not any("already" in w for w in report.not_staged.values())
