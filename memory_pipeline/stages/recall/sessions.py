"""Session-level evidence (pure): a hit from a session that matches the query in several places
gains a little over an equal hit from a session that matches it once.

A session's score is the mean of its best `top` unit scores (a session with one matching unit gets
half its score when `top` is 2), scaled by the best session's; a unit gains `weight` × its
session's scaled score. Questions about what the user said or did are answered by a conversation,
not by one line in it: the turn that states the fact sits among turns on the same subject.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping


def session_terms(scores: Mapping[str, float], session_of: Mapping[str, str], weight: float,
                  top: int) -> dict[str, float]:
    """Unit key → its session's term; units of no session get none."""
    if weight <= 0 or top < 1:
        return {}
    per_session: dict[str, list[float]] = defaultdict(list)
    for key, score in scores.items():
        if session_of.get(key):
            per_session[session_of[key]].append(score)
    strength = {s: sum(sorted(found, reverse=True)[:top]) / top for s, found in per_session.items()}
    best = max(strength.values(), default=0.0)
    if best <= 0:
        return {}
    return {key: weight * strength[session_of[key]] / best for key in scores if session_of.get(key)}
