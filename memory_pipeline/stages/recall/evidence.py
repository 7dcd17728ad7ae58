"""Scoring fused candidates as pieces of evidence (pure): tier weight, stale de-rank, per-message
fusion, and the time terms (a bounded recency term, or the window a query names).

An observation fact and the transcript message it cites say one thing: they form one unit, keyed
by the message, scored by its best member and dated by the message (when it happened). Points that
cite nothing, or more than `max_cited` messages (a narrative over a whole segment), are units alone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta

from memory_pipeline.stages.recall.when import Window

DAY_SECONDS = 86_400.0


def decay_factor(created_ts: float | None, now_ts: float, rate: float) -> float:
    """exp(-rate × days since created); items from the future or without a time are not decayed."""
    if not rate or created_ts is None:
        return 1.0
    days = max(0.0, (now_ts - float(created_ts)) / DAY_SECONDS)
    return math.exp(-rate * days)


def recency_term(created_ts: float | None, now_ts: float, weight: float, half_life_days: float) -> float:
    """weight × 2^(-days / half life): at most `weight`, so it reorders only hits within `weight`."""
    if not weight or created_ts is None or half_life_days <= 0:
        return 0.0
    days = max(0.0, (now_ts - float(created_ts)) / DAY_SECONDS)
    return weight * 0.5 ** (days / half_life_days)


def window_bounds(window: Window, lag_days: int) -> tuple[float, float]:
    """[start, end) in unix seconds: the named days, and `lag_days` after them, when the event is
    told ("last weekend I…")."""
    start = datetime.combine(window.start, time(), tzinfo=UTC)
    end = datetime.combine(window.end + timedelta(days=lag_days + 1), time(), tzinfo=UTC)
    return start.timestamp(), end.timestamp()


@dataclass
class Unit:
    key: str  # the cited message's point id, or the point's own id
    best: str = ""
    best_score: float = -1.0
    members: list[str] = field(default_factory=list)
    total: float = 0.0  # the members' scores summed

    def add(self, pid: str, score: float) -> None:
        self.members.append(pid)
        self.total += score
        if score > self.best_score or (score == self.best_score and pid < self.best):
            self.best, self.best_score = pid, score

    def score(self, share: float) -> float:
        """The best member's score + `share` × the other members' (an observation and the message it
        cites agreeing count for more than either alone; 0: the best member's only)."""
        return self.best_score + share * (self.total - self.best_score) if share else self.best_score


def message_index(payloads: Mapping[str, dict]) -> dict[tuple[str, str], str]:
    """(session id, message id) → the message point's id, over the given payloads."""
    found = {}
    for pid, payload in payloads.items():
        if payload.get("tier") == "messages" and payload.get("source_message_ids"):
            found[(str(payload.get("session_id", "")), str(payload["source_message_ids"][0]))] = pid
    return found


def unit_keys(pid: str, payload: dict, message_of: Mapping[tuple[str, str], str], max_cited: int) -> list[str]:
    """The message points an observation stands for, or [pid]."""
    if payload.get("tier") != "observations":
        return [pid]
    sources = list(payload.get("source_message_ids") or [])
    if not 1 <= len(sources) <= max_cited:
        return [pid]
    session = str(payload.get("session_id", ""))
    cited = [message_of[(session, str(s))] for s in sources if (session, str(s)) in message_of]
    return list(dict.fromkeys(cited)) or [pid]
