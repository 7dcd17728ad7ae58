"""Ledger compaction (seed 001): resolved chains older than 30 days move to the yearly archive.

A chain (events linked by supersedes/related) is resolved when none of its events is still an
open commitment. Once its newest event is 30 days old, its events go to
memory/ledger-archive-YYYY.jsonl and one summary event carrying the chain's final state takes
their place. Chains holding a P0 or P1 event are never archived.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from memory_pipeline.stages.ledger.model import LedgerEvent, event_id
from memory_pipeline.stages.ledger.state import LedgerState, chains

RESOLVED_DAYS = 30


@dataclass
class Compaction:
    keep: list[LedgerEvent] = field(default_factory=list)  # the new ledger, in order
    archived: list[LedgerEvent] = field(default_factory=list)
    summaries: list[LedgerEvent] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.archived)


def _summary(chain: list[LedgerEvent], state: LedgerState, new_id: str, now: datetime) -> LedgerEvent:
    final = max((e for e in chain if state.is_active(e.id)), key=lambda e: (e.ts, e.id), default=chain[-1])
    closed = final.type == "commitment"
    return LedgerEvent(
        ts=now, id=new_id, type=final.type, priority=final.priority,
        content=f"{final.content} (summary of {len(chain)} archived events {chain[0].id}..{chain[-1].id})",
        entity=final.entity, tags=sorted({*final.tags, "archived-chain"}), source=f"memory/ledger-archive-"
        f"{chain[-1].ts.year}.jsonl", session=final.session, project=final.project,
        status="closed" if closed else None, valid_from=final.valid_from,
        said_by=list(dict.fromkeys(r for e in chain for r in e.said_by)),
    )


def plan_compaction(events: list[LedgerEvent], today: date, now: datetime, next_number: int) -> Compaction:
    """What to archive and the summary events (ids EVT-<today>-NNN from `next_number`)."""
    state = LedgerState.of(events)
    by_id = {e.id: e for e in events}
    plan = Compaction()
    archived: set[str] = set()
    for group in chains(events):
        members = [by_id[i] for i in group]
        if any(i in state.open_loops for i in group) or any(e.priority in ("P0", "P1") for e in members):
            continue
        newest = max(e.ts.date() for e in members)
        if (today - newest).days < RESOLVED_DAYS:
            continue
        summary = _summary(members, state, event_id(today.isoformat(), next_number + len(plan.summaries)), now)
        plan.summaries.append(summary)
        plan.archived += members
        archived |= set(group)
    plan.keep = [e for e in events if e.id not in archived] + plan.summaries
    return plan
