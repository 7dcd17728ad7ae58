"""Simple conflict detection (seed 001): two active events about one entity that disagree.

Events of one type are compared (a fact with a fact, a decision with a decision). They disagree
when they say nearly the same words but with other numbers ("port 6379" / "port
6380") or opposite polarity ("uses X" / "does not use X"). Conflicts are surfaced, never resolved.
Only the newest events per entity are compared, so a large ledger stays fast.
"""

from __future__ import annotations

import re
from collections import defaultdict

from memory_pipeline.stages.ledger.model import LedgerEvent

PER_ENTITY = 10
OVERLAP = 0.5
_NEGATION = {"not", "no", "never", "don't", "doesn't", "isn't", "won't", "without", "cannot", "can't", "nor"}
_WORD = re.compile(r"[a-z][a-z0-9'_-]*|\d+(?:\.\d+)*")
_COMMON = {"the", "a", "an", "is", "are", "was", "were", "to", "of", "in", "on", "for", "and", "or", "it", "we",
           "user", "uses", "use", "be", "at", "by", "with", "this", "that"}


def _signature(text: str) -> tuple[frozenset[str], frozenset[str], bool]:
    tokens = _WORD.findall(text.lower())
    numbers = frozenset(t for t in tokens if t[0].isdigit())
    negated = any(t in _NEGATION for t in tokens)
    content = frozenset(t for t in tokens if not t[0].isdigit() and t not in _NEGATION and t not in _COMMON)
    return content, numbers, negated


def disagree(a: str, b: str) -> bool:
    return _disagree(_signature(a), _signature(b))


def signature(text: str) -> tuple[frozenset[str], frozenset[str], bool]:
    """(content words, numbers, negated) of a text: what `signatures_disagree` compares."""
    return _signature(text)


def signatures_disagree(first: tuple, second: tuple) -> bool:
    return _disagree(first, second)


def _disagree(first: tuple, second: tuple) -> bool:
    (words_a, numbers_a, neg_a), (words_b, numbers_b, neg_b) = first, second
    if not words_a or not words_b:
        return False
    overlap = len(words_a & words_b) / len(words_a | words_b)
    if overlap < OVERLAP:
        return False
    return (bool(numbers_a) and bool(numbers_b) and numbers_a != numbers_b) or neg_a != neg_b


def find_conflicts(events: list[LedgerEvent]) -> list[tuple[str, str]]:
    """(older id, newer id) pairs of one entity and type that disagree, in a stable order."""
    by_entity: dict[tuple[str, str], list[LedgerEvent]] = defaultdict(list)
    for event in events:
        if event.entity:
            by_entity[(event.entity, event.type)].append(event)
    found = []
    for entity in sorted(by_entity):
        newest = sorted(by_entity[entity], key=lambda e: (e.ts, e.id))[-PER_ENTITY:]
        signatures = [_signature(e.content) for e in newest]
        for i, first in enumerate(newest):
            for j in range(i + 1, len(newest)):
                if _disagree(signatures[i], signatures[j]):
                    found.append((first.id, newest[j].id))
    return found
