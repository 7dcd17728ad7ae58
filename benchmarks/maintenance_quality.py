"""`memory-pipeline bench maintenance`: what nightly maintenance does to imported histories.

Each LoCoMo dev conversation (bench/locomo_import.py: `import` → `ingest` by the CLI) and the
shared real transcripts get a fresh workspace; then `memory-pipeline maintain --since FIRST --date
LAST --json` runs the job the 02:00 schedule runs, once per day with sessions, `today` = the clock.
Reported: memories merged, tagged stale, vectors dropped, bytes reclaimed, the store's size, and for
LoCoMo recall@10 before and after with the default ranking. A second pass replays maintenance as of
STALE_REPLAY_DAYS later (`--as-of`), as if nobody had recalled anything meanwhile: every memory is
then stale, which prices the stale de-rank. Recall here runs in this process without recording hits:
recorded hits would mark every asked question's answers as recalled, so none could become stale.
The ingested workspaces are kept under `--workdir` (`<id>-ingested`) and copied for each run.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from benchmarks.locomo import DEFAULT_DATA, load_conversations
from benchmarks.locomo_eval import MAX_SOURCES, Variant, evaluate, locomo_questions, merge, table
from benchmarks.locomo_import import cli_env, import_and_ingest, import_folder, moved_to_recent, run_cli
from memory_pipeline.resources.workspace import folder_bytes
from memory_pipeline.stages.recall.rank import RankOptions

TRANSCRIPTS = DEFAULT_DATA.parent.parent / "fixtures" / "transcripts"
STALE_REPLAY_DAYS = 91
FORMER_STALE_FACTOR = 0.5  # the stale de-rank before issue 15's measurement (now RankOptions.stale_factor 0.8)
BEFORE, AFTER = Variant("before maintenance"), Variant("after maintenance")
UNUSED = Variant(f"after {STALE_REPLAY_DAYS} days unused (all stale)")
HALVED = Variant(f"after {STALE_REPLAY_DAYS} days unused, stale factor {FORMER_STALE_FACTOR}")
TOTALS = ("merged", "tagged_stale", "unstaled", "redis_keys_removed", "vectors_dropped", "stores_vacuumed",
          "stores_removed", "store_bytes_reclaimed", "bytes_reclaimed")


def default_hits(root: Path, questions: list[str], options=None) -> dict:
    """question → the default ranking's top 10 (or `options`'), searched in this process, hits not recorded."""
    from memory_pipeline.config import Settings
    from memory_pipeline.flows.recall.engine import RecallEngine, SearchRequest
    from memory_pipeline.resources.workspace import Workspace
    from memory_pipeline.stages.recall.rank import RecallFilters

    engine, now = RecallEngine(Workspace(root / "ws"), Settings.from_env(), options), time.time()
    return {q: engine.search(SearchRequest(query=q, limit=10, filters=RecallFilters(), record=False, now=now))
            for q in dict.fromkeys(questions)}


def maintain(root: Path, first: str | None, last: str, as_of: str | None = None) -> dict:
    """`maintain [--since FIRST] --date LAST [--as-of DAY] --json` on the workspace under `root`; the
    summed counts."""
    env = cli_env(root)
    state = root / "ws" / "state" / "vectors"
    size_before, started = folder_bytes(state), time.perf_counter()
    args = ["maintain", "--date", last, "--json"] + (["--since", first] if first else []) + (
        ["--as-of", as_of] if as_of else [])
    rows = [json.loads(line) for line in run_cli(args, env).splitlines() if line.startswith("{")]
    failed = [r for r in rows if not r.get("success")]
    if failed:
        raise RuntimeError(f"maintenance failed on {len(failed)} days: {failed[:2]}")
    totals = {k: sum(int(r.get(k) or 0) for r in rows) for k in TOTALS}
    return {"days": len(rows), "memories": max((r.get("memories", 0) for r in rows), default=0), **totals,
            "store_bytes_before": size_before, "store_bytes_after": folder_bytes(state),
            "maintain_s": round(time.perf_counter() - started, 1)}


def _fresh(root: Path) -> None:
    if root.exists():
        run_cli(["stop"], cli_env(root))
        shutil.rmtree(root)
    root.mkdir(parents=True)


def _copy(pristine: Path, root: Path) -> None:
    """The ingested workspace copied (services stopped first; sockets and other special files left out)."""
    run_cli(["stop"], cli_env(pristine))
    if root.exists():
        run_cli(["stop"], cli_env(root))
        shutil.rmtree(root)
    special = lambda folder, names: [n for n in names  # noqa: E731
                                     if not (Path(folder, n).is_file() or Path(folder, n).is_dir())]
    shutil.copytree(pristine, root, symlinks=True, ignore=special)


def _ingested(base: Path, name: str, ingest) -> Path:
    """`<base>/<name>-ingested`, made by `ingest(root)` once and reused."""
    pristine = base / f"{name}-ingested"
    if not (pristine / "ingested").exists():
        _fresh(pristine)
        ingest(pristine)
        run_cli(["stop"], cli_env(pristine))
        (pristine / "ingested").write_text("ok\n", encoding="utf-8")
    return pristine


def _days_around(first: date, last: date) -> tuple[str, str]:
    return (first - timedelta(days=1)).isoformat(), min(last + timedelta(days=1), date.today()).isoformat()


def bench_locomo(conv, base: Path, max_sources: int | None, scores: dict) -> dict:
    root = base / f"{conv.sample_id}-maintenance"
    started = time.perf_counter()
    _copy(_ingested(base, conv.sample_id, lambda r: import_and_ingest(conv, r)), root)
    questions = [q["question"] for q in conv.questions]
    hits = {BEFORE.name: default_hits(root, questions)}
    first, last = _days_around(conv.sessions[0].started.date(), conv.sessions[-1].started.date())
    figures = {"ingest_s": round(time.perf_counter() - started, 1), **maintain(root, first, last)}
    hits[AFTER.name] = default_hits(root, questions)
    later = (date.today() + timedelta(days=STALE_REPLAY_DAYS)).isoformat()
    figures["replay_as_of"] = {"day": later, **maintain(root, None, last, as_of=later)}
    hits[UNUSED.name] = default_hits(root, questions)
    hits[HALVED.name] = default_hits(root, questions, RankOptions(stale_factor=FORMER_STALE_FACTOR))
    merge(scores, evaluate(locomo_questions(conv), lambda q, v: hits[v.name][q], [BEFORE, AFTER, UNUSED, HALVED],
                           max_sources))
    run_cli(["stop"], cli_env(root))
    return figures


def bench_transcripts(folder: Path, base: Path) -> dict:
    from memory_pipeline.resources.files.inbox import Inbox
    from memory_pipeline.resources.workspace import Workspace

    root = base / "transcripts-maintenance"
    imported: dict = {}
    _copy(_ingested(base, "transcripts", lambda r: imported.update(import_folder(folder, r))), root)
    days = Inbox(Workspace(root / "ws")).accepted_days()
    figures = {"imported": imported or "(reused)", "first_day": days[0], "last_day": days[-1]}
    figures |= maintain(root, days[0], min(date.fromisoformat(days[-1]) + timedelta(days=1), date.today()).isoformat())
    later = (date.today() + timedelta(days=STALE_REPLAY_DAYS)).isoformat()
    figures["replay_as_of"] = {"day": later, **maintain(root, None, days[-1], as_of=later)}
    run_cli(["stop"], cli_env(root))
    return figures


def bench_maintenance(data: Path = DEFAULT_DATA, transcripts: Path | None = TRANSCRIPTS, workdir: Path | None = None,
                      conversations: int | None = None, max_sources: int | None = MAX_SOURCES) -> dict:
    logging.getLogger("dagster").setLevel(logging.WARNING)
    convs = [moved_to_recent(c) for c in load_conversations(data)[:conversations]]
    scores: dict = {}
    figures: dict = {"today": date.today().isoformat(), "locomo": {}}
    with tempfile.TemporaryDirectory(prefix="mp-maintenance-") as tmp:
        base = Path(workdir) if workdir else Path(tmp)
        for conv in convs:
            figures["locomo"][conv.sample_id] = {
                "days": f"{conv.sessions[0].started:%Y-%m-%d}..{conv.sessions[-1].started:%Y-%m-%d}",
                **bench_locomo(conv, base, max_sources, scores)}
        if transcripts is not None:
            figures["transcripts"] = bench_transcripts(transcripts, base)
    return figures | {"rows": table(scores)}
