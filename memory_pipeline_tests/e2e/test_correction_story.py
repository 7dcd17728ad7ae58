"""A correction takes everywhere: the orders service moves from Postgres 16 to 17.

Through the hooks/CLI path with real Dagster runs (emit → ingest → reflect → review): day one the
user states Postgres 16 (the agent notes it), the line is approved into MEMORY.md; day two the
agent answers from memory ("Memory says … Postgres 16", an echo), then the user corrects it
("We moved to Postgres 17 last week"). After the correction: recall, MCP search, the briefing
and REVIEW.md all put 17 first and mark 16 as replaced; `review approve ID --replace` swaps the
MEMORY.md line. Run with `-s` to see each door's answer.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

import anyio
import dagster as dg
import pytest

from memory_pipeline.config import Settings
from memory_pipeline.defs.resources import build_resources
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.hooks.claude_code import run_claude_code_hook
from memory_pipeline.flows.intake.ingest import ingest
from memory_pipeline.main import main
from memory_pipeline.models import HookPayload
from memory_pipeline.resources.files.ledger_files import LedgerFiles
from memory_pipeline_tests.cli.test_scope import mcp_search
from memory_pipeline_tests.support.dagster_defs import assets, definitions
from memory_pipeline_tests.support.doors import env_settings

pytestmark = pytest.mark.slow
DAY1, DAY2 = "2026-11-20", "2026-11-27"
QUESTION = "which Postgres version does the orders service run on"
SESSIONS = [
    (DAY1, "pg16", f"""[{DAY1} 10:00] [User]: The orders service runs on Postgres 16.
[{DAY1} 10:01] [Assistant]: Noted: the orders service runs on Postgres 16.
[{DAY1} 10:02] [User]: Always run the migrations before deploying the orders service.
[{DAY1} 10:03] [Assistant]: I will run the migrations first.
"""),
    (DAY2, "ask", f"""[{DAY2} 08:00] [User]: Which Postgres version does the orders service run on?
[{DAY2} 08:01] [Assistant]: Memory says the orders service runs on Postgres 16.
[{DAY2} 08:02] [User]: Thanks. Please bump the orders API timeout to 30 seconds.
[{DAY2} 08:03] [Assistant]: Let me check which Postgres driver the orders service runs on first.
"""),
    (DAY2, "pg17", f"""[{DAY2} 09:00] [User]: We moved to Postgres 17 last week.
[{DAY2} 09:01] [Assistant]: Got it, I updated the docker-compose image to postgres:17.
"""),
]


def run_day(workspace, day: str) -> None:
    assert ingest(workspace, definitions(), Settings.from_env(), day=day).success
    reviewed = dg.materialize(assets("reflections", "proposals", "memory_md"), partition_key=day,
                              resources=build_resources(Settings.from_env()))
    assert reviewed.success


def pending_ids(workspace) -> list[str]:
    return re.findall(r"^- \[ \] `(p-[\w-]+)`", workspace.review_md.read_text(), re.MULTILINE)


def test_postgres_16_to_17_takes_in_recall_mcp_the_briefing_and_review(workspace, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    repo = tmp_path / "src" / "orders"
    (repo / ".git").mkdir(parents=True)
    monkeypatch.chdir(repo)
    for day, name, text in SESSIONS:
        path = tmp_path / f"{name}.txt"
        path.write_text(text)
        hour = 12 if name == "ask" else 18
        emit_session_event(workspace, path, trigger="compaction", session_id=name, project="orders",
                           captured_at=datetime.fromisoformat(f"{day}T{hour}:00:00+00:00"), settings=env_settings())
        if name == "pg16":
            run_day(workspace, DAY1)
            assert main(["review", "approve", *pending_ids(workspace)]) == 0  # 16 is in MEMORY.md
    run_day(workspace, DAY2)

    events = LedgerFiles(workspace).read().events
    old = next(e for e in events if e.content == "The orders service runs on Postgres 16.")
    new = next(e for e in events if e.content == "We moved to Postgres 17 last week.")
    assert new.supersedes == old.id
    replaced = f"{new.id}: We moved to Postgres 17 last week."

    capsys.readouterr()
    assert main(["recall", QUESTION, "--json", "--no-service"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    with capsys.disabled():
        print("--- recall ---", *[f"{n + 1}. {h['score']:.3f} {h['text'][:90]} | replaced by: {h['replaced_by']}"
                                  for n, h in enumerate(hits)], sep="\n")
    current = next(n for n, h in enumerate(hits) if "Postgres 17" in h["text"])
    stale = [n for n, h in enumerate(hits) if "Postgres 16" in h["text"]]
    assert stale and all(n > current for n in stale)  # every statement of 16 below the current value
    assert all(hits[n]["replaced_by"] == replaced for n in stale)  # and saying what replaced it
    echo = next((n for n, h in enumerate(hits) if "Memory says" in h["text"]), len(hits))  # below, or not listed
    said = next(n for n, h in enumerate(hits) if "User: The orders service runs on Postgres 16" in h["text"]
                or h["text"].startswith("User stated: \"The orders service runs on Postgres 16"))
    assert said < echo  # the agent's echo of memory ranks below the user's own words (under 0.15 of the best: unlisted)

    with capsys.disabled():
        searched = anyio.run(mcp_search, workspace, repo, QUESTION)
    lines = [line for line in searched.split("```text", 1)[1].splitlines() if " · " in line]
    first_16 = next(n for n, line in enumerate(lines) if "Postgres 16" in line)
    assert "Postgres 17" in " ".join(lines[:first_16])
    assert all("[replaced by " in line for line in lines if "Postgres 16" in line)

    review = workspace.review_md.read_text()
    [moved] = [pid for pid in pending_ids(workspace) if "Postgres 17" in review.split(pid, 1)[1].splitlines()[0]]
    note = review.split(moved, 1)[1].splitlines()[1]
    assert "changes MEMORY.md's" in note and "The orders service runs on Postgres 16." in note
    assert f"review approve {moved} --replace" in note

    def briefing() -> str:
        started = run_claude_code_hook(workspace, HookPayload(session_id=f"s-{datetime.now().timestamp()}",
                                                              hook_event_name="SessionStart", source="startup",
                                                              cwd=str(repo)),
                                       now=datetime(2026, 11, 28, 9, 0, tzinfo=timezone.utc), settings=env_settings())
        return started.output["hookSpecificOutput"]["additionalContext"]

    before = briefing()
    pack = before.split("## Recall pack", 1)[1]
    assert "Postgres 17" in pack and "Postgres 16" not in pack  # the pack states the current value only
    assert main(["review", "approve", moved, "--replace"]) == 0
    memory = workspace.memory_md.read_text()
    assert "Postgres 17" in memory and "Postgres 16" not in memory
    after = briefing()
    assert "Postgres 17" in after and "Postgres 16" not in after
    with capsys.disabled():
        print("--- MCP search ---", *lines, "--- REVIEW.md ---", review, "--- MEMORY.md after --replace ---", memory,
              "--- briefing after ---", after, sep="\n")
