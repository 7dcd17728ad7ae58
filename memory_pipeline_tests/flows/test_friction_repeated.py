"""A correction the user repeats on several days, in their own short words, while the agent's pip
runs did not fail (issue 52): "use uv, not pip" three times becomes one fix through the real path
(Claude Code files; emit, inbox, sessions, the offline Observer, the friction flow offline)."""

from __future__ import annotations

from datetime import datetime, timezone

from memory_pipeline.flows.friction.analysis import analyse_friction
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.embedding.embedder import get_embedder
from memory_pipeline.resources.llm import LLMClient, default_offline_provider
from memory_pipeline_tests.support.friction_sessions import FILLER, claude_session, ingest_files
from memory_pipeline_tests.support.review_fixtures import proposal_store, redis_server, redis_store  # noqa: F401
from memory_pipeline_tests.support.uv_sessions import OTHER_WORK

DAY = "2026-11-21"
SAID = ("use uv, not pip", "omg again: use uv, not pip!", "I told you: uv, not pip.")


def _steps(package: str, said: str) -> list[tuple]:
    return [("user", f"Please add {package} and use it in the billing client."),
            ("bash", f"pip install {package}", f"Successfully installed {package}-0.27.2", False),
            ("user", said),
            ("bash", f"uv add {package}", f"Resolved 12 packages in 41ms\n + {package}==0.27.2", False),
            ("user", "Thanks, commit it with a short message.")]


def test_the_same_correction_on_three_days_is_one_fix(workspace, proposal_store, tmp_path):
    folder, repo = tmp_path / "sessions", str(tmp_path / "billing")
    folder.mkdir()
    plan = [(f"uv-{n}", f"2026-11-{16 + 2 * n}", _steps(pkg, said))
            for n, (pkg, said) in enumerate(zip(("httpx", "respx", "anyio"), SAID))]
    plan += [(f"work-{n}", f"2026-11-{15 + n}", [("user", task), *FILLER]) for n, task in enumerate(OTHER_WORK)]
    files = [(claude_session(folder / f"{sid}.jsonl", sid, repo, day, steps), sid, day) for sid, day, steps in plan]
    ingest_files(workspace, proposal_store.store, files)
    report, staged = analyse_friction(
        workspace, DAY, fixes=proposal_store, embedder=get_embedder(), llm=LLMClient(default_offline_provider(), None),
        prompt=load_prompt("friction"), model="offline", min_observations=10, min_sessions=2, today=DAY,
        now=datetime(2026, 11, 22, 7, 0, tzinfo=timezone.utc))
    assert report.signals == {"correction": 3}  # each tied to the pip run before it
    assert [fix.text for fix in staged.staged] == [
        "Use uv, not pip (the agent ran `pip install` and the user had to correct it in 3 sessions)."]
    [uv] = report.findings
    assert uv.sessions == ["uv-0", "uv-1", "uv-2"] and uv.then == "uv add httpx"
