"""LoCoMo through exactly what a user runs: `import` → `ingest` → `recall --queries FILE --json`.

Each conversation is moved by whole years so that its last session is the latest one before today
(its sessions then lie over the past months, as a user's history does; day and month are kept, and
the years named in its questions move with it: "in August 2023" → "in August 2026"), written as
Claude Code transcript files
(one per session, `bench/locomo.session_jsonl`), and brought in by the real CLI in subprocesses:
`memory-pipeline import DIR`, `memory-pipeline ingest`, then one `memory-pipeline recall --queries
FILE --json` with no other flags (the recall service, the default ranking, `now` = the clock). No API
key is passed on, so the observer is the offline provider, as for a user without one.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchmarks.locomo import LocomoConversation, session_jsonl
from memory_pipeline.config import child_environment
from memory_pipeline.models import RecallHit

YEAR = re.compile(r"\b(?:19|20)\d\d\b")
DROPPED_ENV = ("ANTHROPIC_API_KEY", "MEMORY_LLM_PROVIDER", "QDRANT_URL", "REDIS_URL")


def _plus_years(when: datetime, years: int) -> datetime:
    try:
        return when.replace(year=when.year + years)
    except ValueError:  # 29 February
        return when.replace(year=when.year + years, day=28)


def moved_to_recent(conversation: LocomoConversation, today: datetime | None = None) -> LocomoConversation:
    """A copy moved by whole years so its last session ends before `today`, as late as can be."""
    today = today or datetime.now(timezone.utc)
    last = conversation.last_date
    years = today.year - last.year
    while years and _plus_years(last, years) >= today - timedelta(days=1):
        years -= 1
    sessions = [replace(s, started=_plus_years(s.started, years)) for s in conversation.sessions]
    total = conversation.year_shift + years  # load_conversations may have moved the sessions already
    questions = [q | {"question": YEAR.sub(lambda m: str(int(m.group()) + total), q["question"])}
                 for q in conversation.questions]
    return replace(conversation, sessions=sessions, questions=questions, year_shift=total)


def write_transcripts(conversation: LocomoConversation, folder: Path) -> Path:
    """A Claude Code projects folder: <folder>/-locomo/<session id>.jsonl."""
    project = folder / "-locomo"
    project.mkdir(parents=True, exist_ok=True)
    for session in conversation.sessions:
        name = f"locomo-{conversation.sample_id}-s{session.number}.jsonl"
        (project / name).write_text(session_jsonl(conversation, session), encoding="utf-8")
    return folder


def cli_env(root: Path) -> dict[str, str]:
    env = child_environment(drop=DROPPED_ENV, MEMORY_WORKSPACE=str(root / "ws"), DAGSTER_HOME=str(root / "dagster"),
                            HF_HUB_OFFLINE="1")
    (root / "dagster").mkdir(parents=True, exist_ok=True)
    return env


def run_cli(args: list[str], env: dict[str, str], cwd: Path | None = None) -> str:
    done = subprocess.run([sys.executable, "-m", "memory_pipeline.cli", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, check=False)
    if done.returncode not in (0, 2):
        raise RuntimeError(f"memory-pipeline {' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def import_and_ingest(conversation: LocomoConversation, root: Path) -> dict:
    """Transcripts written, imported and ingested by the CLI; the import's counts."""
    return import_folder(write_transcripts(conversation, root / "projects"), root)


def import_folder(folder: Path, root: Path) -> dict:
    """`memory-pipeline import FOLDER` then `memory-pipeline ingest`, workspace under `root`."""
    env = cli_env(root)
    report = json.loads(run_cli(["import", str(folder), "--json"], env).strip().splitlines()[-1])
    ingested = json.loads(run_cli(["ingest", "--json"], env).strip().splitlines()[-1])
    failed = [d for d in ingested.get("days", []) if not d.get("success", True)]
    if failed:
        raise RuntimeError(f"ingest failed on {len(failed)} days: {failed[:2]}")
    return {k: report[k] for k in ("imported", "indexed_not_observed", "already", "skipped", "failed") if k in report}


def recall_queries(questions: list[str], root: Path, project: str = "locomo") -> dict[str, list[RecallHit]]:
    """question → hits, from one `recall --queries FILE --json` (no other flags) run inside the
    conversation's project folder, as its user would (the transcripts ran in `/locomo`, project
    `locomo`; the generated history in `/history`); the workspace's services are stopped after."""
    env = cli_env(root)
    project_folder = root / "projects" / project
    project_folder.mkdir(parents=True, exist_ok=True)
    path = root / "queries.jsonl"
    unique = list(dict.fromkeys(questions))
    path.write_text("".join(json.dumps({"id": n, "query": q}) + "\n" for n, q in enumerate(unique)), encoding="utf-8")
    try:
        out = run_cli(["recall", "--queries", str(path), "--json"], env, cwd=project_folder)
    finally:
        run_cli(["service", "stop"], env)  # the recall service and the redis-server ingest started
    answers: dict[str, list[RecallHit]] = {}
    for line in out.splitlines():
        row = json.loads(line)
        answers[unique[int(row["id"])]] = [RecallHit.model_validate(h) for h in row.get("hits", [])]
    return answers
