"""lme-dev through exactly what a user runs: `import` the folder → `ingest` → `recall --queries FILE --json`.

lme-dev (../shared/bench/lme-dev, MIT; see its README) is one user's pooled chat history: 444
LongMemEval answer sessions as Claude Code transcripts of project `chat`, over ~2.7 years, and 234
questions whose evidence is the uuids of the turns that hold the answer. The folder is imported
as it is (no flags), ingested, and the questions asked by one `recall --queries FILE --json` (no
other flags) from a folder named `chat`, as the user of that project would.

lme-dev's sessions are older than a fresh workspace's 90 days: `import` reaches back to the oldest
of them by itself (the workspace's partition start), so the bench sets no variable a user would not
set; its output's `env` says so, or names a MEMORY_PARTITIONS_START the caller's environment had.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.locomo_eval import BenchQuestion

DEFAULT_LME = Path(__file__).resolve().parents[1] / ".." / "shared" / "bench" / "lme-dev"
PROJECT = "chat"
TYPES = ("single-session-user", "single-session-assistant", "single-session-preference", "multi-session",
         "knowledge-update", "temporal-reasoning")


def load_questions(folder: Path) -> list[BenchQuestion]:
    """questions.jsonl: one `{"id", "query", "type", "evidence"}` per line."""
    questions = []
    for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            questions.append(BenchQuestion(row["query"], row["type"], tuple(row["evidence"])))
    return questions


def first_day(folder: Path) -> str:
    """The day of the earliest line of any transcript in `folder/transcripts` (YYYY-MM-DD)."""
    days = []
    for path in sorted((folder / "transcripts").glob("*.jsonl")):
        with path.open(encoding="utf-8") as lines:
            first = next((json.loads(line) for line in lines if line.strip()), {})
        if first.get("timestamp"):
            days.append(str(first["timestamp"])[:10])
    if not days:
        raise FileNotFoundError(f"no transcripts with timestamps under {folder / 'transcripts'}")
    return min(days)
