"""The open-loops index and checkpoint (seed 001), and the entity snapshot.

The index is advanced incrementally from the checkpoint's last processed event; the weekly
rebuild replays the whole ledger, and the two must agree (drift would be a bug).
"""

from __future__ import annotations

from collections import Counter

from memory_pipeline.stages.ledger.model import LedgerEvent
from memory_pipeline.stages.ledger.state import LedgerState


def advance_open_loops(index: list[str], new_events: list[LedgerEvent]) -> list[str]:
    """The index after `new_events` (the same rules as LedgerState.apply)."""
    loops = dict.fromkeys(index)
    superseded: set[str] = set()
    for event in new_events:
        if event.supersedes:
            superseded.add(event.supersedes)
            loops.pop(event.supersedes, None)
        if event.closes:
            for target in event.related:
                loops.pop(target, None)
        elif event.type == "commitment" and event.status == "open" and event.id not in superseded:
            loops[event.id] = None
    return list(loops)


def rebuild_open_loops(events: list[LedgerEvent]) -> list[str]:
    return list(LedgerState.of(events).open_loops)


def events_after(events: list[LedgerEvent], last_id: str | None) -> list[LedgerEvent] | None:
    """The events after `last_id` in ledger order; None when the checkpoint's event is not in the
    ledger (then the index must be rebuilt)."""
    if not last_id:
        return list(events)
    for n, event in enumerate(events):
        if event.id == last_id:
            return events[n + 1:]
    return None


def checkpoint(events: list[LedgerEvent], run_ts: str) -> dict:
    return {"last_processed_event_id": events[-1].id if events else None, "last_run_ts": run_ts,
            "events_processed": len(events)}


def entity_snapshot(events: list[LedgerEvent], generated: str) -> dict:
    state = LedgerState.of(events)
    active = state.active()
    tags = Counter(t for e in active for t in e.tags)
    entities = sorted({e.entity for e in active if e.entity})
    return {"generated": generated, "entities": entities, "entity_count": len(entities),
            "tag_counts": dict(sorted(tags.items())), "active_events": len(active),
            "binding_events": sum(1 for e in active if e.binding),
            "decayable_events": sum(1 for e in active if not e.binding),
            "superseded_events": len(state.superseded_by), "open_loops": len(state.open_loops)}
