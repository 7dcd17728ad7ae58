"""Scoring recall (LoCoMo, lme-dev): recall@5, recall@10, hit@5 per question type, several variants.

A hit covers the evidence ids among the messages it cites: its `source_message_ids` and those of its
`sources` (a memory seen in several sessions, merged by maintenance or the same words said twice and
listed once: stages/recall/sources.py). A narrative citing many messages covers evidence cheaply, so
hits citing more than `max_sources` ids get no credit unless `max_sources` is None; the mean number
of cited ids per returned hit is reported either way.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from benchmarks.locomo import CATEGORIES, LocomoConversation, evidence_ids
from memory_pipeline.models import RecallHit

MAX_SOURCES = 5
LOCOMO_ORDER = ("1-4", "multi-hop", "temporal", "open-domain", "single-hop", "adversarial")


@dataclass(frozen=True)
class BenchQuestion:
    query: str
    kind: str  # the question's type (LoCoMo: its category's name)
    evidence: tuple[str, ...]  # the message ids a hit must cite
    overall: bool = True  # counted in the overall row


def locomo_questions(conversation: LocomoConversation) -> list[BenchQuestion]:
    """LoCoMo's questions; the overall row ("1-4") leaves out category 5 (adversarial)."""
    return [BenchQuestion(q["question"], CATEGORIES.get(int(q["category"]), str(q["category"])),
                          tuple(evidence_ids(q)), int(q["category"]) in (1, 2, 3, 4)) for q in conversation.questions]


@dataclass
class Variant:
    name: str
    mode: str = "hybrid"  # hybrid | dense | sparse
    tier: str = "all"
    options: dict = field(default_factory=dict)  # RankOptions fields changed from the defaults
    through_cli: bool = False  # the product path: `recall --queries FILE --json`, no flags
    anchor: bool = False  # BM25 over the raw turns (bench/bm25_turns.py), not this project's ranking


def cited(hit: RecallHit) -> set[str]:
    """Every message id `hit` cites: its own and its sources'."""
    return set(hit.source_message_ids) | {m for source in hit.sources for m in source.message_ids}


@dataclass
class Scores:
    recall5: list[float] = field(default_factory=list)
    recall10: list[float] = field(default_factory=list)
    hit5: list[float] = field(default_factory=list)
    sources_per_hit: list[int] = field(default_factory=list)

    def add(self, evidence: list[str], hits: list[RecallHit], max_sources: int | None) -> None:
        wanted = set(evidence)

        def covered(k: int) -> set[str]:
            found: set[str] = set()
            for hit in hits[:k]:
                ids = cited(hit)
                if max_sources is None or len(ids) <= max_sources:
                    found |= ids & wanted
            return found

        self.recall5.append(len(covered(5)) / len(wanted))
        self.recall10.append(len(covered(10)) / len(wanted))
        self.hit5.append(1.0 if covered(5) else 0.0)
        self.sources_per_hit.extend(len(cited(h)) for h in hits[:10])

    def summary(self) -> dict:
        mean = lambda xs: round(statistics.fmean(xs), 3) if xs else None  # noqa: E731
        return {"n": len(self.recall5), "recall@5": mean(self.recall5), "recall@10": mean(self.recall10),
                "hit@5": mean(self.hit5), "sources_per_hit": mean(self.sources_per_hit)}


def evaluate(questions: list[BenchQuestion], search, variants: list[Variant],
             max_sources: int | None = MAX_SOURCES, overall: str = "1-4") -> dict[str, dict[str, Scores]]:
    """scores[variant][question type or `overall`]; `search(query, variant)` returns the hits."""
    scores: dict[str, dict[str, Scores]] = {v.name: defaultdict(Scores) for v in variants}
    for question in questions:
        for variant in variants:
            hits = search(question.query, variant)
            scores[variant.name][question.kind].add(list(question.evidence), hits, max_sources)
            if question.overall:
                scores[variant.name][overall].add(list(question.evidence), hits, max_sources)
    return scores


def merge(into: dict[str, dict[str, Scores]], more: dict[str, dict[str, Scores]]) -> None:
    for variant, by_category in more.items():
        target = into.setdefault(variant, defaultdict(Scores))
        for category, scores in by_category.items():
            merged = target[category]
            merged.recall5 += scores.recall5
            merged.recall10 += scores.recall10
            merged.hit5 += scores.hit5
            merged.sources_per_hit += scores.sources_per_hit


def table(scores: dict[str, dict[str, Scores]], order: tuple[str, ...] = LOCOMO_ORDER) -> list[dict]:
    """Rows: one per variant and question type, in `order` (the overall row first), others after."""
    rows = []
    for variant, by_category in scores.items():
        for category in [*order, *sorted(set(by_category) - set(order))]:
            if category in by_category:
                rows.append({"variant": variant, "category": category, **by_category[category].summary()})
    return rows
