"""Friction end to end on sessions written for it: emit → sessions → observations → friction → review.

Ten sessions over seven days hold known repeats: a correction in three sessions ("use uv, not
pip"), `npm run build` failing the same way in four sessions of one project (then `pnpm run build`
works), and two one-offs. Friction must find the two patterns with their evidence and nothing else;
approved fixes land in MEMORY.md › Lessons and in the project's CLAUDE.md; a correction seen again
after its fix was approved comes back as a recurring, stronger fix; too little data skips.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import dagster as dg
import pytest

from memory_pipeline.config import Settings
from memory_pipeline.defs.resources import build_resources
from memory_pipeline.defs.review import TODAY_TAG
from memory_pipeline.flows.friction.analysis import load_friction
from memory_pipeline.flows.review.decisions import decide_ids
from memory_pipeline.main import main
from memory_pipeline.models import Transcript
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.support.dagster_defs import assets, definitions, schedule
from memory_pipeline_tests.support.friction_sessions import FILLER, ingest_sessions, plan
from memory_pipeline_tests.support.review_fixtures import proposal_store, redis_server, redis_store  # noqa: F401

pytestmark = pytest.mark.slow
DAY = "2026-11-21"


def materialize_friction(day: str, today: str) -> dg.MaterializeResult:
    result = dg.materialize(assets("friction"), partition_key=day, resources=build_resources(Settings.from_env()),
                            tags={TODAY_TAG: today})
    assert result.success
    return result.asset_materializations_for_node("friction")[0]


def message_ids(workspace: Workspace, day: str, session: str) -> set[str]:
    [path] = [p for p in workspace.sessions_dir(day).glob("*.json")
              if Transcript.model_validate_json(p.read_text()).session_id == session]
    return {m.id for m in Transcript.model_validate_json(path.read_text()).messages}


def test_friction_finds_the_planted_patterns_and_the_behaviour_loop_closes(workspace, proposal_store, tmp_path,
                                                                            monkeypatch):
    project = tmp_path / "web"
    (project / ".git").mkdir(parents=True)  # a fix is written only into a repository's root
    (project / "CLAUDE.md").write_text("# Web app\n\nRun `make dev` to start.\n")
    sessions = plan(project)
    ingest_sessions(workspace, proposal_store.store, tmp_path, sessions)

    materialization = materialize_friction(DAY, "2026-11-21")
    assert materialization.metadata["observations"].value == 10 and materialization.metadata["findings"].value == 2
    report = load_friction(workspace, DAY)
    uv, npm = report.findings
    assert (uv.kind, uv.sessions, uv.target, uv.section) == ("correction", ["s01", "s04", "s07"], "MEMORY.md", "Lessons")
    assert (npm.kind, npm.sessions, npm.occurrences) == ("command-failure", ["s02", "s03", "s05", "s08"], 4)
    assert (npm.target, npm.target_dir, npm.then) == ("CLAUDE.md", str(project), "pnpm run build")
    assert uv.severity == 9.0 and npm.severity == 8.0
    by_session = {sid: day for sid, day, _, _ in sessions}
    for finding in (uv, npm):  # every cited message exists in the session it names, on its day
        for evidence in finding.evidence:
            assert evidence.day == by_session[evidence.session_id]
            assert set(evidence.message_ids) <= message_ids(workspace, evidence.day, evidence.session_id)
    review = workspace.review_md.read_text()
    assert "## Friction Fixes" in review and "settings.toml" not in review and "cargo" not in review
    fixes = {p.target: p for p in proposal_store.pending() if p.is_fix}
    assert set(fixes) == {"MEMORY.md", "CLAUDE.md"} and all(f"`{p.id}`" in review for p in fixes.values())
    assert fixes["MEMORY.md"].text == "Use uv not pip (the user had to say this in 3 sessions)."

    decided = decide_ids(workspace, proposal_store, approve=[p.id for p in fixes.values()], today="2026-11-22",
                         now=datetime(2026, 11, 22, 9, 0, tzinfo=timezone.utc))
    assert sorted(decided.promoted) == sorted(p.id for p in fixes.values())
    memory = workspace.memory_md.read_text()
    assert f"## Lessons\n\n- (2026-11-22) {fixes['MEMORY.md'].text} <!-- {fixes['MEMORY.md'].id} -->" in memory
    claude = (project / "CLAUDE.md").read_text()
    assert claude.startswith("# Web app\n\nRun `make dev` to start.\n") and f"<!-- {fixes['CLAUDE.md'].id} -->" in claude
    assert "pnpm run build" in claude and proposal_store.get(fixes["CLAUDE.md"].id).applied_to == str(project / "CLAUDE.md")

    # the correction comes back after its fix was approved: recurring, escalated to a Hard Rule
    again = [("s11", "2026-11-23", str(tmp_path / "api"), [("user", "use uv, not pip. Again."), *FILLER])]
    ingest_sessions(workspace, proposal_store.store, tmp_path, again)
    monkeypatch.setenv("MEMORY_FRICTION_MIN_OBSERVATIONS", "5")
    materialize_friction("2026-11-23", "2026-11-23")
    later = load_friction(workspace, "2026-11-23")
    assert list(later.recurring) == [fixes["MEMORY.md"].id] and "uv" in later.recurring[fixes["MEMORY.md"].id]
    assert any("fixed by" in why for why in later.not_staged.values())  # npm: not seen since its approval
    [stronger] = [proposal_store.get(fid) for fid in later.staged]
    assert (stronger.section, stronger.recurring_of, stronger.sessions) == ("Hard Rules", fixes["MEMORY.md"].id, ["s11"])
    assert "still recurring after the fix approved on 2026-11-22" in stronger.text


def test_too_little_data_skips_with_a_reason(workspace, proposal_store, tmp_path):
    ingest_sessions(workspace, proposal_store.store, tmp_path, plan(tmp_path / "web")[:3])
    materialization = materialize_friction(DAY, DAY)
    assert "only 3 observations" in materialization.metadata["skipped"].value
    assert load_friction(workspace, DAY).findings == [] and not workspace.review_md.exists()
    assert "*Skipped: only 3 observations" in (workspace.memory_dir / f"{DAY}.md").read_text()


def test_schedule_is_registered_and_its_job_runs_from_the_command(workspace, proposal_store, tmp_path, capsys):
    defs = definitions()
    registered = defs.resolve_schedule_def("friction_schedule")
    assert registered.cron_schedule == "0 7 * * *" and registered.execution_timezone
    context = dg.build_schedule_context(scheduled_execution_time=datetime(2026, 11, 22, 7, 0, tzinfo=timezone.utc))
    request = schedule("friction_schedule")(context)
    assert (request.partition_key, request.run_key) == ("2026-11-21", "friction-2026-11-21")
    ingest_sessions(workspace, proposal_store.store, tmp_path, plan(tmp_path / "web"))
    assert main(["friction", "--date", request.partition_key, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["success"] and len(summary["staged"]) == 2 and summary["skipped"] is None
    assert main(["friction", "--date", "not-a-day"]) == 2
