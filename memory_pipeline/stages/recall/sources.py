"""Every source of a recall hit, and how it is said (pure).

A memory maintenance merged from several sessions keeps each folded fact's source in its payload
(`sources`: ids only, stages/maintenance/duplicates.py); any other point is its own one source.
A hit carries them as `MemorySource`s, oldest first, at most MAX_SOURCES (the `mentions` count in
`why` says how many there are); people read them as one line: "seen in 3 sessions: …".
"""

from __future__ import annotations

from memory_pipeline.models import MemorySource, RecallHit
from memory_pipeline.stages.provenance import point_labels

MAX_SOURCES = 20  # sources a hit carries (a memory seen in a hundred sessions stays a small answer)
SHOWN_SESSIONS = 3  # sessions one line names before "and N more"


def _source(raw: dict) -> MemorySource:
    return MemorySource(fact_id=str(raw.get("id") or ""), session_id=str(raw.get("session_id") or ""),
                        date=str(raw.get("date") or ""), project=str(raw.get("project") or ""),
                        observation_id=str(raw.get("observation_id") or ""),
                        message_ids=[str(m) for m in raw.get("source_message_ids") or []],
                        roles=[str(r) for r in raw.get("source_roles") or []])


def point_sources(point_id: str, payload: dict) -> list[MemorySource]:
    """The sources of a stored point (payload as stored), oldest first, at most MAX_SOURCES."""
    merged = payload.get("sources")
    if isinstance(merged, list) and merged:
        return [_source(s) for s in merged if isinstance(s, dict)][:MAX_SOURCES]
    own = {"id": point_id if payload.get("tier") != "messages" else "", **payload}
    if payload.get("tier") == "messages":
        own["source_roles"] = point_labels(payload)
    return [_source(own)]


def hit_sources(payloads: dict[str, dict], members: list[str], key: str) -> list[MemorySource]:
    """A hit's sources: those of its first observation among `members` (best first; the fact that
    may have been merged), else those of its anchor `key` (a raw message)."""
    observed = next((m for m in members if payloads[m].get("tier") == "observations"), None)
    return point_sources(observed, payloads[observed]) if observed else point_sources(key, payloads[key])


def also_seen(hit: RecallHit, twin: RecallHit) -> RecallHit:
    """`hit` with the sources of `twin`, a hit of the same words (a near-duplicate the list leaves
    out: the user said it again, in the same session or another) that it did not have yet, oldest first;
    its `mentions` counts them. The list shows one hit, "seen in 2 sessions", not one session's words
    and nothing of the other's."""
    have = {(s.session_id, tuple(s.message_ids)) for s in hit.sources}
    new = [s for s in twin.sources if (s.session_id, tuple(s.message_ids)) not in have]
    if not new:
        return hit
    sources = sorted([*hit.sources, *new], key=lambda s: s.date)[:MAX_SOURCES]
    mentions = int(hit.why.get("mentions") or 1) + int(twin.why.get("mentions") or 1)
    return hit.model_copy(update={"sources": sources, "why": {**hit.why, "mentions": mentions}})


def sessions_of(sources: list[MemorySource]) -> list[MemorySource]:
    """The first source of each session, in order."""
    first: dict[str, MemorySource] = {}
    for source in sources:
        first.setdefault(source.session_id, source)
    return list(first.values())


def distinct_width(ids: list[str], least: int) -> int:
    """The fewest leading characters, at least `least`, that tell `ids` apart (all of them if none do):
    UUIDs differ in their first 8, an imported history's "answer_88841f26_1" and "answer_88841f27_1"
    only further on."""
    width = least
    longest = max((len(i) for i in ids), default=0)
    while width < longest and len({i[:width] for i in ids}) < len(set(ids)):
        width += 1
    return width


def seen_in(sources: list[MemorySource], mentions: int | None = None, id_chars: int = 8) -> str:
    """"seen in 5 sessions: 1a2b3c4d (2026-11-20), … and 2 more" for a memory of several sessions,
    "" for one of one session. A `mentions` count above the sources carried (cut at MAX_SOURCES)
    makes the count a lower bound ("20+")."""
    sessions = sessions_of(sources)
    if len(sessions) < 2:
        return ""
    plus = "+" if mentions is not None and mentions > len(sources) else ""
    shown = sessions[:SHOWN_SESSIONS]
    width = distinct_width([s.session_id for s in shown], id_chars)
    named = ", ".join(f"{s.session_id[:width]} ({s.date})" for s in shown)
    more = f" and {len(sessions) - SHOWN_SESSIONS}{plus} more" if len(sessions) > SHOWN_SESSIONS else ""
    return f"seen in {len(sessions)}{plus} sessions: {named}{more}"
