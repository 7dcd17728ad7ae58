"""Term proximity and the user's own things (pure): extra keyword evidence for the top candidates.

"What speed is my new internet plan?" is about *the new internet plan*: a turn that says "new
internet plan" (the question's adjacent content words, in order, close together) answers it better
than a turn about internet speed in general (a sequential dependence model's ordered-window
feature). And a question about "my X" is answered by the turn in which the user says "my X"
(`owned_terms`). A candidate's lowercased text is searched for each pair's words (`str.find`), not
tokenized nor matched by an expression compiled per question: tokenizing fifty long replies per
question cost ~100 ms at load 8, compiling a pattern per pair ~4 ms.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_pipeline.stages.index.sparse import tokenize
from memory_pipeline.stages.recall.rank import Fused

MAX_PAIRS = 32  # a long pasted query is not a phrase search: its first pairs only, the cost bounded
GAP = 20  # characters between two words of a pair: "new internet", "new fibre internet", "new and faster internet"
MY = re.compile(r"\bmy\s+((?:[\w'-]+\s+){0,2}[\w'-]+)", re.IGNORECASE)


def query_pairs(terms: Sequence[str]) -> list[tuple[str, str]]:
    """The question's adjacent content terms, in order, each pair once (the first MAX_PAIRS)."""
    return list(dict.fromkeys((a, b) for a, b in zip(terms, terms[1:], strict=False) if a != b))[:MAX_PAIRS]


def _word_start(text: str, at: int) -> bool:
    return at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_")


def pair_found(low: str, first: str, second: str, gap: int = GAP) -> bool:
    """A word starting with `first` ("wedd" finds "wedding") followed, at most `gap` characters after
    its end, by a word starting with `second`, in the lowercased text `low`."""
    at = low.find(first)
    while at != -1:
        if _word_start(low, at):
            end = at + len(first)
            while end < len(low) and (low[end].isalnum() or low[end] == "_"):
                end += 1
            limit = end + gap + len(second)
            nxt = low.find(second, end + 1, limit)
            while nxt != -1:
                if _word_start(low, nxt):
                    return True
                nxt = low.find(second, nxt + 1, limit)
        at = low.find(first, at + 1)
    return False


def pair_share(pairs: Sequence[tuple[str, str]], text: str) -> float:
    """The share of `pairs` found in `text` in order and close together (`pair_found`)."""
    if not pairs:
        return 0.0
    low = text.lower()
    return sum(1 for a, b in pairs if a in low and b in low and pair_found(low, a, b)) / len(pairs)


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
    merged = dict(fused)
    for pid, (text, role) in texts.items():
        bonus = pair_weight * pair_share(pairs, text) if pairs else 0.0
        if owned and role == "user" and "my" in text.lower():
            bonus += owned_weight * len(owned & owned_terms(text)) / len(owned)
        if bonus > 0:
            item = merged[pid]
            merged[pid] = Fused(item.score + bonus, item.dense_rank, item.dense_score, item.sparse_rank,
                                item.sparse_score, item.extra)
    return merged
