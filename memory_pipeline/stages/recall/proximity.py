"""Term proximity and the user's own things (pure): extra keyword evidence for the top candidates.

"What speed is my new internet plan?" is about *the new internet plan*: a turn that says "new
internet plan" (the question's adjacent content words, in order, within a short window) answers it
better than a turn about internet speed in general (a sequential dependence model's ordered-window
feature). And a question about "my X" is answered by the turn in which the user says "my X"
(`owned_terms`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_pipeline.stages.index.sparse import tokenize
from memory_pipeline.stages.recall.rank import Fused

WINDOW = 3  # an ordered pair counts when the second word comes at most this many content words after the first
MY = re.compile(r"\bmy\s+((?:[\w'-]+\s+){0,2}[\w'-]+)", re.IGNORECASE)


def query_pairs(terms: Sequence[str]) -> list[tuple[str, str]]:
    """The question's adjacent content terms, in order, each pair once."""
    return list(dict.fromkeys((a, b) for a, b in zip(terms, terms[1:]) if a != b))


def pair_share(pairs: Sequence[tuple[str, str]], tokens: Sequence[str], window: int = WINDOW) -> float:
    """The share of `pairs` found in `tokens` in order, the second within `window` terms of the first."""
    if not pairs or not tokens:
        return 0.0
    at: dict[str, list[int]] = {}
    for i, token in enumerate(tokens):
        at.setdefault(token, []).append(i)
    found = 0
    for first, second in pairs:
        later = at.get(second)
        if later and any(0 < j - i <= window for i in at.get(first, ()) for j in later):
            found += 1
    return found / len(pairs)


def top_ids(fused: dict, count: int) -> list[str]:
    """The `count` best candidates so far (id → Fused), best first (ties by id): the ones rescored."""
    return [pid for pid, _ in sorted(fused.items(), key=lambda kv: (-kv[1].score, kv[0]))[:count]]


def owned_terms(text: str) -> set[str]:
    """The content terms within three words after "my" ("my new internet plan" → new, internet, plan)."""
    return {token for m in MY.finditer(text) for token in tokenize(m.group(1))}


def rescored(fused: dict, texts: dict[str, tuple[str, str | None]], query_terms: Sequence[str], query: str,
             pair_weight: float, owned_weight: float) -> dict:
    """`fused` (id → Fused) with the candidates in `texts` (id → (keyword text, role)) given
    + pair_weight × the share of the question's ordered pairs they hold, and, for a question about
    "my X", + owned_weight × the share of its owned terms a user turn says after "my"."""
    pairs = query_pairs(list(query_terms)) if pair_weight > 0 else []
    owned = owned_terms(query) if owned_weight > 0 else set()
    if not pairs and not owned:
        return fused
    merged = dict(fused)
    for pid, (text, role) in texts.items():
        bonus = pair_weight * pair_share(pairs, tokenize(text)) if pairs else 0.0
        if owned and role == "user":
            bonus += owned_weight * len(owned & owned_terms(text)) / len(owned)
        if bonus > 0:
            item = merged[pid]
            merged[pid] = Fused(item.score + bonus, item.dense_rank, item.dense_score, item.sparse_rank,
                                item.sparse_score, item.extra)
    return merged
