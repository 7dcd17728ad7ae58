"""Staleness (seed 003, Increment 3): a memory nobody has recalled or echoed for long is tagged
`stale` so recall de-ranks it; one that is recalled again loses the tag. A recall uses every fact
ranked into a hit (a message hit stands for the facts citing it), and a fact cited by an approved
MEMORY.md line is in use for as long as the line is.

"For long" counts from when the memory could first be recalled, not from the day it is about: a
history imported today holds memories of last year that nobody has had a chance to recall yet, and
the rule "no recall in 90 days" says nothing about them until 90 days have passed. So the age is
measured from the later of the memory's day and the day maintenance first saw it (`since`)."""

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
    since: str | None = None  # YYYY-MM-DD maintenance first saw it (None: its own day)
    reviewed: bool = False  # a line of MEMORY.md cites it: a person kept it, it is in use


@dataclass(frozen=True)
class StaleChanges:
    tag: list[str]  # become stale now
    untag: list[str]  # were stale, recalled or echoed since


def age_days(day: str, today: str) -> int:
    return (date.fromisoformat(today) - date.fromisoformat(day)).days


def stale_changes(memories: list[Memory], today: str, stale_after_days: int) -> StaleChanges:
    """Recallable for more than `stale_after_days` with no recall, no echo and no reviewed line citing
    it → stale; any use → not stale."""
    tag, untag = [], []
    for memory in memories:
        used = memory.recalls > 0 or memory.echoes > 0 or memory.reviewed
        if memory.stale and used:
            untag.append(memory.id)
        elif not memory.stale and not used and age_days(max(memory.day, memory.since or ""), today) > stale_after_days:
            tag.append(memory.id)
    return StaleChanges(sorted(tag), sorted(untag))
