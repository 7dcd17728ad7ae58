"""The knowledge base (seed 001, Layer 3): markdown pages derived from the ledger.

knowledge/entities/<entity>.md, procedures/, principles/ and insights/, after the seed's
templates. Every fact carries `[verified: YYYY-MM-DD]` (⚠️ STALE after 30 days). The generated
part sits between two marker comments; whatever a person wrote outside them is kept as is.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime

from memory_pipeline.stages.ledger.decay import age_days
from memory_pipeline.stages.ledger.model import LedgerEvent
from memory_pipeline.stages.ledger.state import LedgerState

START = "<!-- generated from memory/ledger.jsonl: edits inside are replaced; write outside -->"
END = "<!-- end generated -->"
GENERAL = "general"


def kebab(name: str) -> str:
    return name.replace("_", "-").strip("-") or GENERAL


def _mark(event: LedgerEvent, today: date, verified: datetime | None = None) -> str:
    """Its source and when it was last verified: said, or spoken of again (`LedgerState.verified`)."""
    age = age_days(event, today, verified)
    stale = " [⚠️ STALE]" if 30 < age <= 60 else " [❌ STALE]" if age > 60 else ""
    return f"[source: {event.source}] [verified: {(verified or event.ts).date().isoformat()}]{stale}"


def entity_page(entity: str, events: list[LedgerEvent], state: LedgerState, today: date) -> str:
    active = [e for e in events if state.is_active(e.id)]
    facts = [e for e in active if e.type not in ("relationship", "commitment")]
    newest = max(active or events, key=lambda e: (e.ts, e.id))
    lines = [f"# {entity.replace('_', ' ').title()}", "*Type: topic*", f"*Last updated: {newest.ts.date()}*", "",
             "## Summary", newest.content, "", "## Key Facts"]
    lines += [f"- {e.content} ({e.id}) {_mark(e, today, state.verified(e))}" for e in facts] or ["_none_"]
    lines += ["", "## Relationships"]
    lines += [f"- {e.content} ({e.id}) {_mark(e, today, state.verified(e))}" for e in active
              if e.type == "relationship"] or ["_none_"]
    lines += ["", "## Active Context"]
    lines += [f"- open: {e.content} ({e.id}, since {e.ts.date()})" for e in active if e.id in state.open_loops] \
        or ["_none_"]
    lines += ["", "## History"]
    for e in events:
        replaced = state.superseded_by.get(e.id)
        note = f" — superseded by {replaced}" if replaced else " — closed" if e.id in state.closed_by else ""
        lines.append(f"- {e.ts.date()} {e.id} ({e.type}): {e.content}{note}")
    return "\n".join(lines) + "\n"


def procedure_page(name: str, events: list[LedgerEvent], today: date) -> str:
    first = min(events, key=lambda e: (e.ts, e.id))
    lines = [f"# Procedure: {name.replace('_', ' ')}", f"*Last updated: {max(e.ts for e in events).date()}*",
             f"*Source: {first.source} ({first.id})*", "", "## When to Use", f"Work on {name.replace('_', ' ')}.",
             "", "## Steps"]
    lines += [f"{n}. {e.content} {_mark(e, today)}" for n, e in enumerate(events, start=1)]
    return "\n".join(lines + ["", "## Notes", "_none yet_"]) + "\n"


def principle_page(name: str, events: list[LedgerEvent], today: date) -> str:
    first = min(events, key=lambda e: (e.ts, e.id))
    top = min(e.priority for e in events)
    lines = [f"# Principle: {name.replace('_', ' ')}", f"*Priority: {top}*", f"*Established: {first.ts.date()}*",
             f"*Source: {first.source} ({first.id})*", "", "## Rule"]
    lines += [f"- {e.content} ({e.id}) {_mark(e, today)}" for e in events]
    return "\n".join(lines + ["", "## Rationale", "_not recorded_", "", "## Exceptions", "_none recorded_"]) + "\n"


def insight_page(name: str, events: list[LedgerEvent], today: date) -> str:
    first = min(events, key=lambda e: (e.ts, e.id))
    lines = [f"# Insight: {name.replace('_', ' ')}", f"*Learned: {first.ts.date()}*",
             f"*Source: {first.source} ({first.id})*", "", "## The Insight", first.content, "", "## Evidence"]
    lines += [f"- {e.content} ({e.id}) {_mark(e, today)}" for e in events]
    return "\n".join(lines + ["", "## Application", "_to be written_"]) + "\n"


def knowledge_pages(events: list[LedgerEvent], today: date) -> dict[str, str]:
    """Relative path under knowledge/ -> generated markdown, for every page the ledger supports."""
    state = LedgerState.of(events)
    active = state.active()
    groups: dict[tuple[str, str], list[LedgerEvent]] = defaultdict(list)
    for e in active:
        name = e.entity or GENERAL
        if e.type == "procedure":
            groups[("procedures", name)].append(e)
        if e.type in ("constraint", "preference") and e.priority in ("P0", "P1"):
            groups[("principles", name)].append(e)
        if "insight" in e.tags:
            groups[("insights", name)].append(e)
    render = {"procedures": procedure_page, "principles": principle_page, "insights": insight_page}
    pages = {f"{kind}/{kebab(name)}.md": render[kind](name, found, today) for (kind, name), found in groups.items()}
    by_entity: dict[str, list[LedgerEvent]] = defaultdict(list)
    for e in events:
        if e.entity:
            by_entity[e.entity].append(e)
    for entity, found in by_entity.items():
        pages[f"entities/{kebab(entity)}.md"] = entity_page(entity, found, state, today)
    return dict(sorted(pages.items()))


def merge_generated(existing: str, generated: str) -> str:
    """`existing` with its generated block replaced by `generated`; hand text outside is kept. A page
    without markers (written by hand) keeps all its text and gets the block appended."""
    block = f"{START}\n{generated.rstrip()}\n{END}\n"
    if START in existing and END in existing.split(START, 1)[1]:
        before, rest = existing.split(START, 1)
        after = rest.split(END, 1)[1]
        return before + block.rstrip("\n") + after if after.strip() else before + block
    if not existing.strip():
        return block
    return existing.rstrip("\n") + "\n\n" + block
