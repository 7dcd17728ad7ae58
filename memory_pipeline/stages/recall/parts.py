"""The items a comparison question names, searched on their own (pure).

"Which happened first, the meeting with Rachel or the pride parade?" needs two turns, often from
two sessions, and the whole question's words favour whichever item it spells out at more length.
Each named item ("the meeting with Rachel", "the pride parade"; quoted titles; "between A and B")
is looked up by keyword alone — and so are the two events a duration question joins ("How many days
before my friend's party did I order her gift?" → "friend's party", "order her gift") — and its best
turns join the candidates as a keyword-only match of
that item (min-max scaled over the item's own list, `RankOptions.sparse_weight`), kept when that
beats the turn's score for the whole question. Keyword alone: no query embedding per item, so the
latency of a comparison question is that of any other.
"""

from __future__ import annotations

import re

from memory_pipeline.stages.index.sparse import tokenize
from memory_pipeline.stages.recall.rank import Fused

MAX_PARTS = 4
# 'The Hitchhiker's Guide to the Galaxy': a quote opens and closes at a word's edge, not inside a word
QUOTED = re.compile(r"(?<!\w)['\"‘“](.{3,}?)['\"’”](?!\w)")
ONE_OR_OTHER = re.compile(r"[,:]\s*(.+?)\s+or\s+(.+?)[?.!]*$", re.IGNORECASE)
BETWEEN = re.compile(r"\bbetween\s+(.+?)\s+and\s+(.+?)[?.!]*$", re.IGNORECASE)
LEADING = re.compile(r"^(?:the|my|a|an)\s+", re.IGNORECASE)
# "How many days before my friend's party did I order her gift?": the time between two events
DURATION = re.compile(r"^\s*how\s+(?:many|much)\s+(?:more\s+)?(?:days|weeks|months|years|time)\b(.*)$", re.IGNORECASE)
LINKS = re.compile(r"\s+(?:before|after|when|since|until)\s+|\s+(?:did|was|were|had|have)\s+i\s+", re.IGNORECASE)


def query_parts(query: str) -> list[str]:
    """The items the query compares or lists: two or more quoted phrases, "…, A or B", "between A
    and B", the events of "how many days before/after/since/when …" (lme-dev temporal-reasoning 0.708
    → 0.724, in process); [] for any other query."""
    quoted = [m.group(1).strip() for m in QUOTED.finditer(query)]
    if len(quoted) >= 2:
        return quoted[:MAX_PARTS]
    for pattern in (ONE_OR_OTHER, BETWEEN):
        if m := pattern.search(query):
            return [LEADING.sub("", m.group(1).strip()), LEADING.sub("", m.group(2).strip())]
    if m := DURATION.match(query):
        pieces = [LEADING.sub("", p.strip(" ?.!,")) for p in LINKS.split(m.group(1))]
        pieces = [p for p in pieces if len(tokenize(p)) >= 2]  # "had passed" names no event
        if len(pieces) >= 2:
            return pieces[:MAX_PARTS]
    return []


def with_part(fused: dict[str, Fused], part: dict[str, Fused]) -> dict[str, Fused]:
    """`fused` with one item's candidates joined: a candidate keeps the better of its two scores."""
    merged = dict(fused)
    for pid, item in part.items():
        if pid not in merged:
            merged[pid] = item
        elif item.score > merged[pid].score:
            merged[pid] = Fused(item.score, merged[pid].dense_rank, merged[pid].dense_score,
                                merged[pid].sparse_rank, merged[pid].sparse_score, merged[pid].extra)
    return merged
