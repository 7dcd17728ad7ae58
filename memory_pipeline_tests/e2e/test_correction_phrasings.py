"""A correction takes however the user words it: through emit → ingest (real Dagster runs, the offline
Observer) and `recall`, the older statement is superseded and every hit stating it says what replaced it.

Before `stages/offline/observer_update.py`, of fourteen ways to correct a fact of the work, one took ("Correction:
…", by its numbers); the others were not kept by the Observer, or kept and filed under another entity.
"""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from memory_pipeline.config import Settings
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.intake.ingest import ingest
from memory_pipeline.main import main
from memory_pipeline.resources.files.ledger_files import LedgerFiles
from memory_pipeline_tests.support.dagster_defs import definitions
from memory_pipeline_tests.support.doors import env_settings

pytestmark = pytest.mark.slow
DAY1, DAY2 = "2026-11-20", "2026-11-27"


@pytest.mark.parametrize("old, new, question", [
    ("Redis listens on port 6379.", "Scratch that, Redis is on port 6380, not 6379.", "which port is Redis on"),
    ("Our tests run on Jest.", "Tests run on Vitest these days, not Jest.", "what test runner do we use"),
    ("The API lives at /v1.", "No, the API lives at /v2 now.", "where does the API live"),
    ("Deploys go through Jenkins.", "That's outdated: deploys go through Argo CD now.", "how do deploys go out"),
    ("We use npm for this repo.", "We use pnpm now.", "which package manager do we use"),  # another tool of the job
])
def test_a_correction_in_other_words_supersedes_the_fact_it_corrects(old, new, question, workspace, tmp_path,
                                                                       monkeypatch, capsys):
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    repo = tmp_path / "src" / "orders"
    (repo / ".git").mkdir(parents=True)
    monkeypatch.chdir(repo)
    for day, name, said in ((DAY1, "before", old), (DAY2, "after", new)):
        path = tmp_path / f"{name}.txt"
        path.write_text(f"[{day} 10:00] [User]: {said}\n"
                        f"[{day} 10:01] [Assistant]: Noted, I will keep `config/app.yml` in line with it.\n")
        emit_session_event(workspace, path, trigger="compaction", session_id=name, project="orders",
                           captured_at=datetime.fromisoformat(f"{day}T18:00:00+00:00"), settings=env_settings())
        assert ingest(workspace, definitions(), Settings.from_env(), day=day).success

    events = LedgerFiles(workspace).read().events
    first = next(e for e in events if e.content == old)
    update = next(e for e in events if e.day == DAY2 if e.supersedes)
    assert update.supersedes == first.id

    capsys.readouterr()
    assert main(["recall", question, "--json", "--no-service"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    stale = [h for h in hits if old.rstrip(".") in h["text"]]
    assert stale and all(h["replaced_by"] == f"{update.id}: {update.content}" for h in stale)
    assert hits.index(stale[0]) > next(n for n, h in enumerate(hits) if new.rstrip(".").split(", ")[-1] in h["text"]
                                       or update.content.rstrip(".") in h["text"])


@pytest.mark.parametrize("old, new, kept", [
    ("Redis listens on port 6379.", "Scratch that, Redis is on port 6380, not 6379.", "Redis is on port 6380, not 6379."),
    ("Deploys go through Jenkins.", "That's outdated: deploys go through Argo CD now.", "Deploys go through Argo CD now."),
])
def test_a_correction_said_in_a_session_of_one_line_takes(old, new, kept, workspace, tmp_path, monkeypatch):
    """The user opens the agent, says what changed, the agent says "Got it." and the session ends: no tool, no
    code, no work, yet the window is observed (a statement to keep), it is work on software (a part of the setup
    named: observer_rules.SETUP_TERM) and the update supersedes the fact. Before, it was indexed only."""
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    for day, name, said in ((DAY1, "before", old), (DAY2, "after", new)):
        path = tmp_path / f"{name}.txt"
        path.write_text(f"[{day} 10:00] [User]: {said}\n[{day} 10:01] [Assistant]: Got it.\n")
        result = emit_session_event(workspace, path, trigger="shutdown", session_id=name, project="orders",
                                    captured_at=datetime.fromisoformat(f"{day}T18:00:00+00:00"),
                                    settings=env_settings(), session_over=True)
        assert result.event is not None and result.event.data.observing == "observed"
        assert ingest(workspace, definitions(), Settings.from_env(), day=day).success

    events = LedgerFiles(workspace).read().events
    first = next(e for e in events if e.content == old)
    update = next(e for e in events if e.day == DAY2 if e.supersedes)
    assert update.supersedes == first.id and update.content == kept
