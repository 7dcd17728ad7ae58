"""`memory-pipeline bench recall --quality`: lme-dev and LoCoMo through import, ingest and recall.

Each set is brought in by the real CLI (`import` → `ingest`, bench/locomo_import.py, bench/lme.py)
and asked through `recall --queries FILE --json` with no flags: the "product defaults via import"
row, what a user gets. Beside it, in the same run and on the same turns, the keyword anchor: plain
BM25 over the raw turns (bench/bm25_turns.py). The summary puts the two side by side per question
type, recall@10 and recall@5. The other rows change one thing from the current ranking, in this
process, over the same workspace and clock. Scoring: bench/locomo_eval.py.
"""

from __future__ import annotations

import logging
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from benchmarks.bm25_turns import workspace_turns
from benchmarks.lme import PROJECT, TYPES, first_day, load_questions
from benchmarks.locomo import load_conversations
from benchmarks.locomo_eval import (
    LOCOMO_ORDER,
    MAX_SOURCES,
    Variant,
    evaluate,
    locomo_questions,
    merge,
    table,
)
from benchmarks.locomo_import import import_and_ingest, import_folder, moved_to_recent, recall_queries
from memory_pipeline.config import Settings
from memory_pipeline.stages.recall.rank import RankOptions, RecallFilters

PRODUCT = "product defaults via import"
ANCHOR = "bm25 over turns"
VARIANTS = [
    Variant(PRODUCT, through_cli=True),
    Variant(ANCHOR, anchor=True),
    Variant("bm25 only", mode="sparse"),
    Variant("dense only", mode="dense"),
    Variant("hybrid RRF k=60", options=dict(fusion="rrf", dense_weight=1.0, sparse_weight=1.0)),
    Variant("no recency term", options=dict(recency_weight=0.0)),
    Variant("messages tier", tier="messages"),
    Variant("no time-aware ranking", options=dict(time_aware=False)),
    Variant("no session evidence", options=dict(session_weight=0.0)),
    Variant("no query parts", options=dict(query_parts=False)),
    Variant("no speaker preference", options=dict(speaker_factor=1.0)),
    Variant("light verbs kept", options=dict(light_verbs_out=False)),
    Variant("no ordered pairs", options=dict(pair_weight=0.0)),
    Variant("no 'my X' rescoring", options=dict(owned_weight=0.0)),
    Variant("quoted observations apart", options=dict(collapse_quoted=False)),
]


def _searcher(workspace, answers: dict):
    from memory_pipeline.flows.recall.engine import RecallEngine, SearchRequest

    settings = Settings.from_env()
    anchor = workspace_turns(workspace)  # reads the store (its own opener) before the variants hold it
    base = RecallEngine(workspace, settings, service=True)  # the variants share the shard, held as the service
    if hasattr(base.store, "hold"):  # holds it (opened once, not per request: 10x faster over 13 variants);
        base.store.hold()  # the CLI's recall service, done with the product row, is asked to let go
    engines: dict[str, RecallEngine] = {}
    now = time.time()

    def engine_for(variant: Variant) -> RecallEngine:
        key = str(sorted(variant.options.items()))
        if key not in engines:
            options = replace(RankOptions(), **variant.options)
            engines[key] = RecallEngine(workspace, settings, options, store=base.store, embedder=base.embedder,
                                        service=True)
            engines[key]._query_vectors = base._query_vectors  # embed each question once
        return engines[key]

    def search(question: str, variant: Variant):
        if variant.through_cli:
            return answers[question]
        if variant.anchor:
            return anchor.search(question, 10)
        request = SearchRequest(query=question, limit=10, filters=RecallFilters(tier=variant.tier), record=False,
                                now=now, mode=variant.mode)
        return engine_for(variant).search(request)

    return search


def _ingested_once(root: Path, ingest) -> float:
    """`ingest(root)` unless `root` already holds an ingested workspace; the seconds it took."""
    started = time.perf_counter()
    if not (root / "ingested").exists():
        root.mkdir(parents=True, exist_ok=True)
        ingest(root)
        (root / "ingested").write_text("ok\n", encoding="utf-8")
    return round(time.perf_counter() - started, 1)


def _ask(root: Path, questions, variants, max_sources, overall: str, project: str) -> tuple[dict, dict]:
    from memory_pipeline.resources.workspace import Workspace

    started = time.perf_counter()
    answers = recall_queries([q.query for q in questions], root, project=project)
    asked = time.perf_counter()
    scores = evaluate(questions, _searcher(Workspace(root / "ws"), answers), variants, max_sources, overall)
    return scores, {"questions": len(questions), "cli_recall_s": round(asked - started, 1),
                    "eval_s": round(time.perf_counter() - asked, 1)}


def locomo_figures(data: Path, base: Path, conversations: int | None, sessions: int | None,
                   max_sources: int | None, variants: list[Variant]) -> dict:
    """Each conversation in its own workspace (`<base>/<sample id>-import`, reused when ingested)."""
    convs = [moved_to_recent(c) for c in load_conversations(data, limit_sessions=sessions)[:conversations]]
    scores: dict = {}
    timings = {}
    for conv in convs:
        root = base / f"{conv.sample_id}-import"
        ingest_s = _ingested_once(root, lambda r, c=conv: import_and_ingest(c, r))
        conv_scores, timing = _ask(root, locomo_questions(conv), variants, max_sources, "1-4", "locomo")
        merge(scores, conv_scores)
        timings[conv.sample_id] = {"ingest_s": ingest_s, **timing}
    oldest = min(c.sessions[0].started for c in convs)
    return {"data": str(Path(data).resolve()), "conversations": timings,
            "days": {c.sample_id: f"{c.sessions[0].started:%Y-%m-%d}..{c.sessions[-1].started:%Y-%m-%d}"
                     for c in convs}, "scores": scores, "env": _env_note(f"{oldest:%Y-%m-%d}")}


def lme_figures(folder: Path, base: Path, max_sources: int | None, variants: list[Variant]) -> dict:
    """The folder imported once into `<base>/lme-dev` (reused when ingested), its questions asked."""
    root = base / "lme-dev"
    ingest_s = _ingested_once(root, lambda r: import_folder(folder / "transcripts", r))
    scores, timing = _ask(root, load_questions(folder), variants, max_sources, "all", PROJECT)
    return {"data": str(folder.resolve()), "ingest_s": ingest_s, **timing, "scores": scores,
            "env": _env_note(first_day(folder))}


def _env_note(start: str) -> str:
    """What the run set that a user would not: nothing, unless the caller's environment names a partition start."""
    set_now = Settings.from_env().partitions_start
    return (f"MEMORY_PARTITIONS_START={set_now} from the caller's environment" if set_now else
            f"none: import reached back to the oldest session ({start}) by itself")


def summary(name: str, scores: dict, order: tuple[str, ...]) -> list[dict]:
    """Per question type: this project (product row) beside the BM25 anchor, recall@10 and @5."""
    rows = []
    for kind in order:
        ours, anchor = scores[PRODUCT].get(kind), scores[ANCHOR].get(kind)
        if ours is None or anchor is None:
            continue
        mine, theirs = ours.summary(), anchor.summary()
        rows.append({"set": name, "type": kind, "n": mine["n"], "recall@10": mine["recall@10"],
                     "bm25 recall@10": theirs["recall@10"], "recall@5": mine["recall@5"],
                     "bm25 recall@5": theirs["recall@5"]})
    return rows


def bench_recall_quality(data: Path, lme: Path | None, workdir: Path | None = None, conversations: int | None = None,
                         sessions: int | None = None, max_sources: int | None = MAX_SOURCES,
                         variants: list[Variant] | None = None) -> dict:
    """lme-dev (when `lme` is given) and LoCoMo; workspaces kept in `workdir` when given."""
    logging.getLogger("dagster").setLevel(logging.WARNING)
    variants = variants or VARIANTS
    figures: dict = {"summary": [], "rows": []}
    with tempfile.TemporaryDirectory(prefix="mp-recall-quality-") as tmp:
        base = Path(workdir) if workdir else Path(tmp)
        sets = []
        if lme is not None:
            sets.append(("lme-dev", lme_figures(lme, base, max_sources, variants), ("all", *TYPES)))
        sets.append(("locomo", locomo_figures(data, base, conversations, sessions, max_sources, variants),
                     LOCOMO_ORDER))
    for name, found, order in sets:
        scores = found.pop("scores")
        figures["summary"] += summary(name, scores, order)
        figures["rows"] += [{"set": name, **row} for row in table(scores, order)]
        figures[name] = found
    figures["max_sources_credited"] = max_sources
    return figures
