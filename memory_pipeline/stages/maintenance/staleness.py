"""Staleness (seed 003, Increment 3): a memory nobody has recalled or echoed for long is tagged
`stale` so recall de-ranks it; one that is recalled again loses the tag."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class Memory:
    id: str
    day: str  # YYYY-MM-DD the memory is about (when it happened)
    stale: bool
    recalls: int = 0
    echoes: int = 0


@dataclass(frozen=True)
class StaleChanges:
    tag: list[str]  # become stale now
    untag: list[str]  # were stale, recalled or echoed since


def age_days(day: str, today: str) -> int:
    return (date.fromisoformat(today) - date.fromisoformat(day)).days


def stale_changes(memories: list[Memory], today: str, stale_after_days: int) -> StaleChanges:
    """Older than `stale_after_days` with no recall and no echo → stale; any use → not stale."""
    tag, untag = [], []
    for memory in memories:
        used = memory.recalls > 0 or memory.echoes > 0
        if memory.stale and used:
            untag.append(memory.id)
        elif not memory.stale and not used and age_days(memory.day, today) > stale_after_days:
            tag.append(memory.id)
    return StaleChanges(sorted(tag), sorted(untag))
