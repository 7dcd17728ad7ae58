"""Ranking recall candidates (pure): fusion, score decay, stale de-rank, collapse, inject cap.

Inputs are the dense and the sparse ranked lists (point id, score), already filtered; the
output is the RecallHit list an agent sees. Figures behind the defaults come from
`memory-pipeline bench recall --quality` (LoCoMo dev set).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import date

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import RecallHit
from memory_pipeline.stages.index.sparse import tokenize

TIERS = ("observations", "messages")
PRIORITIES = ("high", "medium", "low")
MAX_QUERY_CHARS = 4000
DEFAULT_CAP = 10
MAX_CAP = 100
DAY_SECONDS = 86_400.0
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\ufeff]")


@dataclass(frozen=True)
class RecallFilters:
    tier: str = "all"
    since: str | None = None  # YYYY-MM-DD, inclusive
    until: str | None = None
    priority: str | None = None
    session_id: str | None = None


@dataclass(frozen=True)
class RankOptions:
    limit: int = DEFAULT_CAP  # the inject cap
    # LoCoMo recall@10 (1–4, messages tier, BM25 k1 1.2 b 0.75): RRF k=60 0.689; scores / best, dense
    # weight 0.5 0.709, 0.3 0.737, 0.2 0.725; min-max scaled, 0.5 0.755, 0.4 0.751, 0.3 0.744
    # (all tiers: 0.737, 0.746, 0.741). Min-max 0.4 / 0.6 with BM25 k1 0.9 b 0.4: 0.763 (all: 0.756).
    fusion: str = "minmax"  # "rrf" | "weighted" (scores / best) | "minmax" (min-max scaled)
    rrf_k: float = 60.0
    dense_weight: float = 0.4
    sparse_weight: float = 0.6
    decay_rate: float = 0.01  # per day: score × exp(-rate × days since created)
    now_ts: float = 0.0
    stale_factor: float = 0.5  # a stale item keeps this share of its score
    collapse_jaccard: float = 0.9  # hits whose word sets overlap this much are one hit
    collapse_same_sources: bool = True  # a hit citing only messages already cited above is dropped


@dataclass
class Fused:
    score: float = 0.0
    dense_rank: int | None = None
    dense_score: float | None = None
    sparse_rank: int | None = None
    sparse_score: float | None = None
    extra: dict = field(default_factory=dict)


def clean_query(query: str) -> str:
    """Control characters removed, whitespace collapsed; raises BadInputError when unusable."""
    if not isinstance(query, str):
        raise BadInputError(f"the query must be text, got {type(query).__name__}")
    if len(query) > MAX_QUERY_CHARS:
        raise BadInputError(f"the query has {len(query)} characters; the limit is {MAX_QUERY_CHARS}")
    cleaned = " ".join(CONTROL.sub(" ", query).split())
    if not cleaned:
        raise BadInputError("the query is empty")
    if not tokenize(cleaned):
        raise BadInputError(f"the query {cleaned[:40]!r} has no words to search for (only stop words or punctuation)")
    return cleaned


def check_day(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(str(value)).isoformat()
    except ValueError as exc:
        raise BadInputError(f"{name} must be a date YYYY-MM-DD, got {value!r}") from exc


def check_filters(filters: RecallFilters) -> RecallFilters:
    if filters.tier not in (*TIERS, "all"):
        raise BadInputError(f"tier must be observations, messages or all, got {filters.tier!r}")
    if filters.priority is not None and filters.priority not in PRIORITIES:
        raise BadInputError(f"priority must be high, medium or low, got {filters.priority!r}")
    since, until = check_day(filters.since, "since"), check_day(filters.until, "until")
    if since and until and since > until:
        raise BadInputError(f"since ({since}) is after until ({until})")
    return RecallFilters(filters.tier, since, until, filters.priority, filters.session_id or None)


def check_limit(limit: int) -> int:
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_CAP:
        raise BadInputError(f"limit must be a whole number from 1 to {MAX_CAP}, got {limit!r}")
    return limit


def matches(payload: dict, filters: RecallFilters) -> bool:
    """The filters as a predicate over a payload (the index applies the same in numpy)."""
    day = str(payload.get("date") or "")
    return (
        not payload.get("merged_into")
        and (filters.tier == "all" or payload.get("tier") == filters.tier)
        and (filters.since is None or day >= filters.since)
        and (filters.until is None or day <= filters.until)
        and (filters.priority is None or payload.get("priority") == filters.priority)
        and (filters.session_id is None or payload.get("session_id") == filters.session_id)
    )


def fuse(dense: list[tuple[str, float]], sparse: list[tuple[str, float]], options: RankOptions) -> dict[str, Fused]:
    """Reciprocal-rank fusion, or a weighted sum of max-normalized scores."""
    fused: dict[str, Fused] = {}
    for ranked, weight, kind in ((dense, options.dense_weight, "dense"), (sparse, options.sparse_weight, "sparse")):
        scale = _scaler(ranked, options.fusion)
        for rank, (pid, score) in enumerate(ranked, start=1):
            item = fused.setdefault(pid, Fused())
            setattr(item, f"{kind}_rank", rank)
            setattr(item, f"{kind}_score", score)
            item.score += weight * (1.0 / (options.rrf_k + rank) if options.fusion == "rrf" else scale(score))
    return fused


def _scaler(ranked: list[tuple[str, float]], fusion: str):
    """Score → [0, 1]: divided by the best ("weighted"), or min-max over the candidates ("minmax")."""
    scores = [s for _, s in ranked]
    top = max(scores, default=0.0)
    low = min(scores, default=0.0) if fusion == "minmax" else 0.0
    span = top - low
    if span <= 0:  # one candidate, or all equal: each gets full credit
        return lambda score: 1.0
    return lambda score: max(score - low, 0.0) / span


def decay_factor(created_ts: float | None, now_ts: float, rate: float) -> float:
    """exp(-rate × days since created); items from the future or without a time are not decayed."""
    if not rate or created_ts is None:
        return 1.0
    days = max(0.0, (now_ts - float(created_ts)) / DAY_SECONDS)
    return math.exp(-rate * days)


def display_text(payload: dict) -> str:
    """What the agent reads: a message with its speaker, or the observation text."""
    if payload.get("tier") == "messages" and payload.get("message"):
        role = str(payload.get("role") or "").title()
        return f"{role}: {payload['message']}" if role else str(payload["message"])
    return str(payload.get("text", ""))


def _similar(a: set[str], b: set[str], threshold: float) -> bool:
    if not a or not b:
        return False
    return len(a & b) / len(a | b) >= threshold


def rank(payloads: dict[str, dict], fused: dict[str, Fused], options: RankOptions) -> list[RecallHit]:
    """Decay, stale de-rank, sort, collapse near-duplicates, cap. `payloads` holds every fused id."""
    scored = []
    for pid, item in fused.items():
        payload = payloads[pid]
        decay = decay_factor(payload.get("created_ts"), options.now_ts, options.decay_rate)
        stale = bool(payload.get("stale"))
        feedback = float(payload.get("feedback") or 0.0)  # echo/fizzle, bounded to ±0.5
        score = item.score * decay * (options.stale_factor if stale else 1.0) * (1.0 + feedback)
        scored.append((score, pid, item, decay, stale))
    scored.sort(key=lambda row: (-row[0], row[1]))
    hits: list[RecallHit] = []
    kept: list[set[str]] = []
    shown_sources: set[str] = set()
    for score, pid, item, decay, stale in scored:
        payload = payloads[pid]
        text = display_text(payload)
        words = set(tokenize(text))
        sources = set(payload.get("source_message_ids") or [])
        if any(_similar(words, seen, options.collapse_jaccard) for seen in kept):
            continue
        if options.collapse_same_sources and sources and sources <= shown_sources:
            continue  # a fact restating messages already shown (or the message of a fact shown)
        kept.append(words)
        shown_sources |= sources
        hits.append(RecallHit(
            id=pid,
            tier=payload.get("tier", "observations"),
            text=text,
            score=float(f"{score:.6g}"),
            date=str(payload.get("date", "")),
            session_id=str(payload.get("session_id", "")),
            priority=payload.get("priority"),
            source_message_ids=list(payload.get("source_message_ids") or []),
            why={
                "dense_rank": item.dense_rank,
                "dense_score": None if item.dense_score is None else round(item.dense_score, 4),
                "sparse_rank": item.sparse_rank,
                "sparse_score": None if item.sparse_score is None else round(item.sparse_score, 4),
                "fused": float(f"{item.score:.6g}"),
                "decay": round(decay, 4),
                "stale": int(stale),
                "mentions": int(payload.get("mentions") or 1),
                "feedback": float(payload.get("feedback") or 0.0),
            },
        ))
        if len(hits) >= options.limit:
            break
    return hits
