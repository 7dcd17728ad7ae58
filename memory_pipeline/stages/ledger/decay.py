"""Decay regimes (seed 001): binding types never decay; facts, preferences and relationships age.

An event ages from when it was last verified: said, or spoken of again by a later event about the same thing
(`LedgerState.verified`: the later event lists it in `related`), not from when it was first written.

P0 is permanent too. `freshness` answers, for an event on a day: "fresh", "stale" (flagged ⚠️ in the pack) or "expired"
(left out of the pack, kept in the ledger). Expiry by priority: P3 after 30 days, P2 after 90.
"""

from __future__ import annotations

from datetime import date, datetime

from memory_pipeline.stages.ledger.model import LedgerEvent

# type -> (stale after days, expired after days); None: never
DECAY_DAYS: dict[str, tuple[int | None, int | None]] = {
    "fact": (30, 90),
    "preference": (60, None),
    "relationship": (60, 120),
}
PRIORITY_EXPIRY = {"P3": 30, "P2": 90}


def age_days(event: LedgerEvent, today: date, verified: datetime | None = None) -> int:
    return max(0, (today - (verified or event.ts).date()).days)


def freshness(event: LedgerEvent, today: date, verified: datetime | None = None) -> str:
    if event.binding or event.priority == "P0":
        return "fresh"  # binding types and P0 (permanent): only an explicit transition removes them
    age = age_days(event, today, verified)
    stale, expired = DECAY_DAYS.get(event.type, (None, None))
    limit = PRIORITY_EXPIRY.get(event.priority)
    if (expired is not None and age > expired) or (limit is not None and age > limit):
        return "expired"
    if stale is not None and age > stale:
        return "stale"
    return "fresh"
