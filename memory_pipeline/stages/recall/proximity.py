"""Term proximity and the user's own things (pure): extra keyword evidence for the top candidates.

"What speed is my new internet plan?" is about *the new internet plan*: a turn that says "new
internet plan" (the question's adjacent content words, in order, close together) answers it better
than a turn about internet speed in general (a sequential dependence model's ordered-window
feature). And a question about "my X" is answered by the turn in which the user says "my X"
(`owned_terms`). A candidate's text is searched with one regular expression per pair, not
tokenized: tokenizing fifty long replies per question cost ~100 ms at load 8.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_pipeline.stages.index.sparse import tokenize
from memory_pipeline.stages.recall.rank import Fused

GAP = 20  # characters between two words of a pair: "new internet", "new fibre internet", "new and faster internet"
MY = re.compile(r"\bmy\s+((?:[\w'-]+\s+){0,2}[\w'-]+)", re.IGNORECASE)


def query_pairs(terms: Sequence[str]) -> list[tuple[str, str]]:
    """The question's adjacent content terms, in order, each pair once."""
    return list(dict.fromkeys((a, b) for a, b in zip(terms, terms[1:]) if a != b))


def pair_patterns(pairs: Sequence[tuple[str, str]], gap: int = GAP) -> list[re.Pattern]:
    """One expression per pair: a word starting with the first term ("wedd" finds "wedding"), then within
    `gap` characters a word starting with the second."""
    return [re.compile(rf"\b{re.escape(a)}\w*\W.{{0,{gap - 1}}}?\b{re.escape(b)}", re.IGNORECASE | re.DOTALL)
            for a, b in pairs]


def pair_share(patterns: Sequence[re.Pattern], text: str) -> float:
    """The share of the question's pairs (`pair_patterns`) found in `text`."""
    if not patterns:
        return 0.0
    return sum(1 for pattern in patterns if pattern.search(text)) / len(patterns)


def owned_terms(text: str) -> set[str]:
    """The content terms within three words after "my" ("my new internet plan" → new, internet, plan)."""
    return {token for m in MY.finditer(text) for token in tokenize(m.group(1))}


def top_ids(fused: dict[str, Fused], count: int) -> list[str]:
    """The `count` best candidates so far, best first (ties by id): the ones rescored."""
    return [pid for pid, _ in sorted(fused.items(), key=lambda kv: (-kv[1].score, kv[0]))[:count]]


def rescored(fused: dict[str, Fused], texts: dict[str, tuple[str, str | None]], query_terms: Sequence[str],
             query: str, pair_weight: float, owned_weight: float) -> dict[str, Fused]:
    """`fused` with the candidates in `texts` (id → (keyword text, role)) given + pair_weight × the
    share of the question's ordered pairs they hold, and, for a question about "my X", + owned_weight
    × the share of its owned terms a user turn says after "my"."""
    pairs = query_pairs(list(query_terms)) if pair_weight > 0 else []
    owned = owned_terms(query) if owned_weight > 0 else set()
    if not pairs and not owned:
        return fused
    patterns = pair_patterns(pairs)
    merged = dict(fused)
    for pid, (text, role) in texts.items():
        bonus = pair_weight * pair_share(patterns, text) if patterns else 0.0
        if owned and role == "user" and "my" in text.lower():
            bonus += owned_weight * len(owned & owned_terms(text)) / len(owned)
        if bonus > 0:
            item = merged[pid]
            merged[pid] = Fused(item.score + bonus, item.dense_rank, item.dense_score, item.sparse_rank,
                                item.sparse_score, item.extra)
    return merged
