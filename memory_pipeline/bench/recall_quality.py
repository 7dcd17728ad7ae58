"""`memory-pipeline bench recall --quality`: LoCoMo through ingest and recall, several variants.

The first row goes through `flows.recall.recall()` itself with its defaults (decay 0.01/day, now =
the conversation's last session). The other rows use the same engine with decay off (LoCoMo
questions have no recency preference) and one thing changed; "hybrid" is the ranking recall()
uses, all tiers. Questions, evidence and scoring: bench/locomo.py, bench/locomo_eval.py.
"""

from __future__ import annotations

import logging
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from memory_pipeline.bench.locomo import DEFAULT_DATA, ingest_conversation, load_conversations
from memory_pipeline.bench.locomo_eval import MAX_SOURCES, Variant, evaluate, merge, table
from memory_pipeline.stages.recall.rank import RecallFilters

VARIANTS = [
    Variant("recall() defaults: decay 0.01", through_api=True, decay_rate=None),
    Variant("bm25 only", mode="sparse"),
    Variant("dense only", mode="dense"),
    Variant("hybrid RRF k=60", mode="hybrid", fusion="rrf"),
    Variant("hybrid", mode="hybrid"),
    Variant("hybrid, messages tier", mode="hybrid", tier="messages"),
    Variant("hybrid, observations tier", mode="hybrid", tier="observations"),
    Variant("hybrid, decay 0.01", mode="hybrid", decay_rate=None),
]


def _searcher(workspace, now_ts: float):
    from memory_pipeline.config import Settings
    from memory_pipeline.flows.recall.client import recall
    from memory_pipeline.flows.recall.engine import RecallEngine, SearchRequest

    settings = Settings.from_env()
    base = RecallEngine(workspace, settings)
    engines: dict[tuple, RecallEngine] = {(None, None): base}

    def engine_for(rate: float | None, fusion: str | None) -> RecallEngine:
        if (rate, fusion) not in engines:
            options = base.options
            options = options if rate is None else replace(options, decay_rate=rate)
            options = options if fusion is None else replace(options, fusion=fusion, dense_weight=1.0,
                                                             sparse_weight=1.0)
            engines[(rate, fusion)] = RecallEngine(workspace, settings, options, store=base.store,
                                                   embedder=base.embedder)
            engines[(rate, fusion)]._query_vectors = base._query_vectors  # embed each question once
        return engines[(rate, fusion)]

    def search(question: str, variant: Variant):
        if variant.through_api:
            return recall(workspace, question, limit=10, tier=variant.tier, record=False, now=now_ts,
                          use_service=False)
        request = SearchRequest(query=question, limit=10, filters=RecallFilters(tier=variant.tier), record=False,
                                now=now_ts, mode=variant.mode)
        return engine_for(variant.decay_rate, variant.fusion).search(request)

    return search


def bench_recall_quality(definitions, data: Path = DEFAULT_DATA, workdir: Path | None = None, conversations: int | None = None,
                         sessions: int | None = None, max_sources: int | None = MAX_SOURCES,
                         variants: list[Variant] | None = None) -> dict:
    """Ingest each conversation into its own workspace (reused when `workdir` already holds it)."""
    from memory_pipeline.resources.workspace import Workspace

    logging.getLogger("dagster").setLevel(logging.WARNING)
    variants = variants or VARIANTS
    convs = load_conversations(data, limit_sessions=sessions)[:conversations]
    scores: dict = {}
    timings = {}
    with tempfile.TemporaryDirectory(prefix="mp-locomo-") as tmp:
        base = Path(workdir) if workdir else Path(tmp)
        for conv in convs:
            root = base / conv.sample_id
            started = time.perf_counter()
            done = root / "ingested"
            if done.exists():
                workspace = Workspace(root / "ws")
            else:
                workspace = ingest_conversation(conv, root, definitions)
                done.write_text("ok\n", encoding="utf-8")
            ingested = time.perf_counter()
            search = _searcher(workspace, conv.last_date.timestamp())
            merge(scores, evaluate(conv, search, variants, max_sources))
            timings[conv.sample_id] = {"ingest_s": round(ingested - started, 1),
                                       "questions": len(conv.questions),
                                       "eval_s": round(time.perf_counter() - ingested, 1)}
    return {"data": str(Path(data).resolve()), "conversations": timings, "max_sources_credited": max_sources,
            "year_shifts": {c.sample_id: c.year_shift for c in convs}, "rows": table(scores)}
