"""The Postgres 16 → 17 story through the real Claude Code client (the hooks `install-hooks` writes,
a loopback model): the user states 16, the line is approved into MEMORY.md; in a later session the
agent answers from memory ("Memory says … 16") and the user corrects it ("We moved to Postgres 17
last week"). Then recall, MCP search, REVIEW.md and the next session's briefing put 17 first and
mark 16 as replaced, and `review approve ID --replace` swaps the MEMORY.md line."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import anyio
import pytest

from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.cli.test_scope import mcp_search
from memory_pipeline_tests.support.agent_clients import ClientHome
from memory_pipeline_tests.support.loopback_models import LoopbackModels

pytestmark = pytest.mark.slow  # ingest runs Dagster and the embedding model
STATED, NOTED = "The orders service runs on Postgres 16.", "Noted: the orders service runs on Postgres 16."
ASKED, ECHO = "Which Postgres version does the orders service run on?", "Memory says the orders service runs on Postgres 16."
MOVED, DONE = "We moved to Postgres 17 last week.", "Got it, I updated the docker-compose image to postgres:17."
QUESTION = "which Postgres version does the orders service run on"


@dataclass
class Story:
    home: ClientHome
    project: Path
    models: LoopbackModels


def ok(done) -> str:
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def pipeline_day(home: ClientHome, project: Path) -> None:
    """What the nightly jobs do for today: ingest, then reflect (proposals into REVIEW.md)."""
    home.settle()
    ok(home.memory(["ingest", "--json"], cwd=project, timeout=900))
    ok(home.memory(["reflect", "--date", date.today().isoformat()], cwd=project, timeout=900))


def pending(home: ClientHome, project: Path) -> list[dict]:
    return json.loads(ok(home.memory(["review", "list", "--json"], cwd=project)))["proposals"]


@pytest.fixture(scope="module")
def story(clients, models: LoopbackModels, module_tmp: Path):
    for said, reply in ((STATED, NOTED), (ASKED, ECHO), (MOVED, DONE)):
        models.answer_when(said, reply)
    home = ClientHome(clients, module_tmp / "home", models.url, module_tmp / "workspace")
    project = module_tmp / "orders"
    project.mkdir()
    ok(home.install_hooks(project))
    try:
        # three turns each: a session shorter than a conversation waits to be observed with its next window
        first = [STATED, "Always run the migrations before deploying the orders service.", "Thanks, that is all."]
        assert home.claude_conversation(["--session-id", str(uuid.uuid4())], project, first) == 0
        pipeline_day(home, project)
        ids = [p["id"] for p in pending(home, project) if "Postgres 16" in p["text"]]
        assert ids, pending(home, project)
        ok(home.memory(["review", "approve", *ids], cwd=project))  # 16 is reviewed memory now
        second = [ASKED, "Please bump the orders API timeout to 30 seconds.", MOVED]
        assert home.claude_conversation(["--session-id", str(uuid.uuid4())], project, second) == 0
        pipeline_day(home, project)
        yield Story(home, project, models)
    finally:
        home.memory(["stop"], cwd=project, timeout=60)


def briefing(story: Story, prompt: str) -> str:
    """The SessionStart briefing the model received in a new session's first request."""
    ok(story.home.claude(["-p", prompt, "--session-id", str(uuid.uuid4())], cwd=story.project))
    return next(r for r in story.models.model_requests() if prompt in r.text).text


def test_recall_puts_17_first_and_marks_every_statement_of_16_replaced(story):
    hits = json.loads(ok(story.home.memory(["recall", QUESTION, "--json"], cwd=story.project)))["hits"]
    shown = [f"{h['text'][:80]} | {h['replaced_by']}" for h in hits]
    current = next(n for n, h in enumerate(hits) if "Postgres 17" in h["text"])
    stale = [n for n, h in enumerate(hits) if "Postgres 16" in h["text"]]
    assert stale and all(n > current for n in stale), shown
    assert all("We moved to Postgres 17 last week" in (hits[n]["replaced_by"] or "") for n in stale), shown
    echo = next((n for n, h in enumerate(hits) if "Memory says" in h["text"]), len(hits))  # below, or not listed
    said = next(n for n, h in enumerate(hits) if STATED[:-1] in h["text"] and "Memory says" not in h["text"]
                and "Noted" not in h["text"])
    assert said < echo, shown  # the agent's echo of memory is not new evidence


def test_mcp_search_from_the_project_folder_agrees(story):
    answer = anyio.run(mcp_search, Workspace(story.home.workspace), story.project, QUESTION)
    lines = [line for line in answer.split("```text", 1)[1].splitlines() if " · " in line]
    first_16 = next((n for n, line in enumerate(lines) if "Postgres 16" in line), None)
    assert first_16 is not None, answer
    assert any("Postgres 17" in line for line in lines[:first_16]), lines
    assert all("[replaced by " in line for line in lines if "Postgres 16" in line), lines


def test_review_md_shows_both_and_replace_swaps_the_memory_line(story):
    review = (story.home.workspace / "REVIEW.md").read_text()
    [moved] = [p["id"] for p in pending(story.home, story.project) if "Postgres 17" in p["text"]]
    note = review.split(moved, 1)[1].splitlines()[1]
    assert "changes MEMORY.md's" in note and STATED in note and f"review approve {moved} --replace" in note

    before = briefing(story, "What is on the list for today?")
    pack = before.split("## Recall pack", 1)[1].split("## Notes observed", 1)[0]
    notes = before.split("## Notes observed", 1)[1]
    assert "Postgres 16" not in pack  # the pack states the current value only (said once: there or in the notes)
    assert "Postgres 17" in pack or "in the notes above)_" in pack
    assert "Postgres 16" not in notes and "Postgres 17" in notes  # and so do the notes of earlier sessions
    ok(story.home.memory(["review", "approve", moved, "--replace"], cwd=story.project))
    memory = (story.home.workspace / "MEMORY.md").read_text()
    assert "Postgres 17" in memory and "Postgres 16" not in memory
    after = briefing(story, "And what else is open?")
    assert "Postgres 17" in after.split("# Session briefing", 1)[1] and "Postgres 16" not in after
