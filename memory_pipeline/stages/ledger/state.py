"""What the ledger says now: which events are superseded, which commitments are open, the chains.

Built by replaying events in ledger order (`LedgerState.apply`), so the ledger flow can keep it
current while it appends, and the pack, integrity checks and archival read the same answer.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from memory_pipeline.stages.ledger.model import LedgerEvent
from memory_pipeline.stages.union_find import UnionFind


@dataclass
class LedgerState:
    events: dict[str, LedgerEvent] = field(default_factory=dict)  # in ledger order
    superseded_by: dict[str, str] = field(default_factory=dict)  # old id -> the id that replaced it
    closed_by: dict[str, str] = field(default_factory=dict)  # commitment id -> the closing event's id
    open_loops: dict[str, None] = field(default_factory=dict)  # open commitment ids, oldest first
    by_entity: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    fact_ids: set[str] = field(default_factory=set)
    referenced: dict[str, datetime] = field(default_factory=dict)  # id -> when a later event last spoke of it
    _content_keys: set[tuple[str, str]] | None = None  # (session, normalized content), built when asked

    @classmethod
    def of(cls, events: list[LedgerEvent]) -> LedgerState:
        state = cls()
        for event in events:
            state.apply(event)
        return state

    def apply(self, event: LedgerEvent) -> None:
        self.events[event.id] = event
        if event.supersedes:
            self.superseded_by.setdefault(event.supersedes, event.id)
            self.open_loops.pop(event.supersedes, None)
        if event.closes:
            for target in event.related:
                if target in self.open_loops:
                    self.closed_by.setdefault(target, event.id)
                    self.open_loops.pop(target, None)
        elif event.type == "commitment" and event.status == "open" and event.id not in self.superseded_by:
            self.open_loops[event.id] = None
        if not event.closes:
            for target in event.related:  # a later event about the same thing: the older one was referenced
                if target in self.events and event.ts > self.referenced.get(target, self.events[target].ts):
                    self.referenced[target] = event.ts
        if event.entity:
            self.by_entity[event.entity].append(event.id)
        if event.fact_id:
            self.fact_ids.add(event.fact_id)
        if self._content_keys is not None:
            self._content_keys.add(content_key(event.session, event.content))

    def is_active(self, event_id: str) -> bool:
        """Still true as far as the ledger knows: not superseded, not closed, not a closing event."""
        event = self.events.get(event_id)
        return (event is not None and event_id not in self.superseded_by and event_id not in self.closed_by
                and not event.closes)

    def active(self) -> list[LedgerEvent]:
        return [e for e in self.events.values() if self.is_active(e.id)]

    def active_about(self, entity: str | None) -> list[LedgerEvent]:
        if not entity:
            return []
        return [self.events[i] for i in self.by_entity.get(entity, []) if self.is_active(i)]

    def seen(self, fact_id: str | None, session: str | None, content: str) -> bool:
        """An event for this fact (or this content from this session) is already in the ledger."""
        if fact_id is not None and fact_id in self.fact_ids:
            return True
        if self._content_keys is None:
            self._content_keys = {content_key(e.session, e.content) for e in self.events.values()}
        return content_key(session, content) in self._content_keys

    def verified(self, event: LedgerEvent) -> datetime:
        """When the event was last said or spoken of again (seed 001: "stale if not referenced")."""
        return max(event.ts, self.referenced.get(event.id, event.ts))

    def replacement(self, event_id: str) -> str | None:
        """The newest event in the supersession chain starting at `event_id` (None if not superseded)."""
        seen, current = {event_id}, self.superseded_by.get(event_id)
        while current and current in self.superseded_by and self.superseded_by[current] not in seen:
            seen.add(current)
            current = self.superseded_by[current]
        return current


def content_key(session: str | None, content: str) -> tuple[str, str]:
    return session or "", " ".join(content.lower().split())


def chains(events: list[LedgerEvent]) -> list[list[str]]:
    """Connected groups of events linked by `supersedes` or `related` (2 events or more), each in
    ledger order; groups in order of their first event."""
    order = {e.id: n for n, e in enumerate(events)}
    sets = UnionFind(order, rank=order.__getitem__)  # the earliest event is a chain's root
    for event in events:
        for other in [event.supersedes, *event.related]:
            if other in order:
                sets.union(event.id, other)
    return sorted((g for g in sets.groups() if len(g) > 1), key=lambda g: order[g[0]])
