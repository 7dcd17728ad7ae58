"""`memory-pipeline bench recall --quality --by-age`: recall@10 by the age of the evidence.

A generated three-year history (bench/history.py) goes through the product path, as the LoCoMo row
does: Claude Code transcript files → `import` → `ingest` → `recall --queries FILE --json` with no
flags. Each question has one evidence turn; recall@1, @3 and @10 are reported per age bucket of that turn
(< 6 months, 6–12, 12–24, > 24), and apart for the questions that name a time (their topic was
discussed at other times too, so @1 tells whether the named time wins over the others).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.history import default_today, generate, write_history
from benchmarks.locomo_eval import cited
from benchmarks.locomo_import import import_folder, recall_queries

BUCKETS = ((0, 182, "< 6 months"), (182, 365, "6-12 months"), (365, 730, "12-24 months"), (730, 10**6, "> 24 months"))


def bucket(age_days: float) -> str:
    return next(name for low, high, name in BUCKETS if low <= age_days < high)


def _at(ranks: list[int | None], k: int) -> float:
    """One evidence turn per question: recall@k is the share found in the top k."""
    return round(statistics.fmean(1.0 if r is not None and r <= k else 0.0 for r in ranks), 3)


def bench_recall_by_age(workdir: Path | None = None, sessions: int = 540, seed: int = 7) -> dict:
    today = default_today()
    history, questions = generate(today, sessions=sessions, seed=seed)
    with tempfile.TemporaryDirectory(prefix="mp-history-") as tmp:
        root = (Path(workdir) if workdir else Path(tmp)) / f"history-{seed}-{sessions}-{today:%Y%m%d}"
        started = time.perf_counter()
        if not (root / "ingested").exists():
            root.mkdir(parents=True, exist_ok=True)
            import_folder(write_history(history, root / "projects"), root)
            (root / "ingested").write_text("ok\n", encoding="utf-8")
        ingested = time.perf_counter()
        answers = recall_queries([q.question for q in questions], root, project="history")
    found: dict[str, list[int | None]] = {}
    for q in questions:
        hits = answers.get(q.question, [])[:10]
        rank = next((n for n, h in enumerate(hits, start=1) if q.evidence in cited(h)), None)
        age = (today - q.evidence_time).total_seconds() / 86_400
        for name in (bucket(age), "names a time" if q.names_time else "names no time", "all"):
            found.setdefault(name, []).append(rank)
    order = [name for _, _, name in BUCKETS] + ["names a time", "names no time", "all"]
    rows = [{"variant": "product defaults via import", "category": name, "n": len(found[name]),
             **{f"recall@{k}": _at(found[name], k) for k in (1, 3, 10)}} for name in order if found.get(name)]
    return {"sessions": sessions, "seed": seed, "today": today.date().isoformat(), "questions": len(questions),
            "ingest_s": round(ingested - started, 1), "recall_s": round(time.perf_counter() - ingested, 1),
            "rows": rows}
