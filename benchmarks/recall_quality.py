"""`memory-pipeline bench recall --quality`: LoCoMo through import, ingest and recall, several variants.

Each conversation becomes Claude Code transcripts of the past months, brought in by the real CLI
(`import` → `ingest`, bench/locomo_import.py). The first row, "product defaults via import", is
`recall --queries FILE --json` with no flags: what a user gets. The second is the ranking before
issue 13 (decay exp(-0.01·days), one hit per point) over the same workspace and clock. The other rows
change one thing from the current defaults, in this process, with the same clock. Questions,
evidence and scoring: bench/locomo.py, bench/locomo_eval.py.
"""

from __future__ import annotations

import logging
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from benchmarks.locomo import DEFAULT_DATA, load_conversations
from benchmarks.locomo_eval import MAX_SOURCES, Variant, evaluate, merge, table
from benchmarks.locomo_import import import_and_ingest, moved_to_recent, recall_queries
from memory_pipeline.stages.recall.rank import OLD_DEFAULTS, RankOptions, RecallFilters

PRODUCT = "product defaults via import"
VARIANTS = [
    Variant(PRODUCT, through_cli=True),
    Variant("old defaults (decay exp 0.01/day)", base="old"),
    Variant("bm25 only", mode="sparse"),
    Variant("dense only", mode="dense"),
    Variant("hybrid RRF k=60", options=dict(fusion="rrf", dense_weight=1.0, sparse_weight=1.0)),
    Variant("no recency term", options=dict(recency_weight=0.0)),
    Variant("messages tier", tier="messages"),
    Variant("observations tier", tier="observations"),
    Variant("no per-message fusion", options=dict(fuse_by_message=False)),
    Variant("observations weigh 1.0", options=dict(observation_weight=1.0)),
    Variant("no time-aware ranking", options=dict(time_aware=False)),
]


def _searcher(workspace, answers: dict):
    from memory_pipeline.config import Settings
    from memory_pipeline.flows.recall.engine import RecallEngine, SearchRequest

    settings = Settings.from_env()
    base = RecallEngine(workspace, settings)
    engines: dict[str, RecallEngine] = {}
    now = time.time()

    def engine_for(variant: Variant) -> RecallEngine:
        key = f"{variant.base}:{sorted(variant.options.items())}"
        if key not in engines:
            options = replace(OLD_DEFAULTS if variant.base == "old" else RankOptions(), **variant.options)
            engines[key] = RecallEngine(workspace, settings, options, store=base.store, embedder=base.embedder)
            engines[key]._query_vectors = base._query_vectors  # embed each question once
        return engines[key]

    def search(question: str, variant: Variant):
        if variant.through_cli:
            return answers[question]
        request = SearchRequest(query=question, limit=10, filters=RecallFilters(tier=variant.tier), record=False,
                                now=now, mode=variant.mode)
        return engine_for(variant).search(request)

    return search


def bench_recall_quality(data: Path = DEFAULT_DATA, workdir: Path | None = None, conversations: int | None = None,
                         sessions: int | None = None, max_sources: int | None = MAX_SOURCES,
                         variants: list[Variant] | None = None) -> dict:
    """Import and ingest each conversation into its own workspace (reused when `workdir` already holds it)."""
    from memory_pipeline.resources.workspace import Workspace

    logging.getLogger("dagster").setLevel(logging.WARNING)
    variants = variants or VARIANTS
    convs = [moved_to_recent(c) for c in load_conversations(data, limit_sessions=sessions)[:conversations]]
    scores: dict = {}
    timings = {}
    with tempfile.TemporaryDirectory(prefix="mp-locomo-") as tmp:
        base = Path(workdir) if workdir else Path(tmp)
        for conv in convs:
            root = base / f"{conv.sample_id}-import"
            started = time.perf_counter()
            done = root / "ingested"
            if not done.exists():
                root.mkdir(parents=True, exist_ok=True)
                import_and_ingest(conv, root)
                done.write_text("ok\n", encoding="utf-8")
            ingested = time.perf_counter()
            answers = recall_queries([q["question"] for q in conv.questions], root)
            asked = time.perf_counter()
            search = _searcher(Workspace(root / "ws"), answers)
            merge(scores, evaluate(conv, search, variants, max_sources))
            timings[conv.sample_id] = {"ingest_s": round(ingested - started, 1), "questions": len(conv.questions),
                                       "cli_recall_s": round(asked - ingested, 1),
                                       "eval_s": round(time.perf_counter() - asked, 1)}
    return {"data": str(Path(data).resolve()), "conversations": timings, "max_sources_credited": max_sources,
            "days": {c.sample_id: f"{c.sessions[0].started:%Y-%m-%d}..{c.sessions[-1].started:%Y-%m-%d}"
                     for c in convs}, "rows": table(scores)}
