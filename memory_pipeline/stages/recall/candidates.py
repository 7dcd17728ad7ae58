"""What a candidate source hands the ranking (pure): the dense and keyword top lists, each with its
scores, and every candidate's payload. Two sources make them: the Edge shard's own query
(resources/vectors/edge_recall.py) and the in-memory index of the Qdrant-server path (resources/vectors/recall_index.py);
`stages/recall/rank.py` fuses and ranks them the same way for both."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

Ranked = list[tuple[str, float]]  # (point id, score), best first


@dataclass(frozen=True)
class CandidateQuery:
    """One recall's searches: the query vector (None: no dense side), its keyword terms (empty: no
    keyword side), the extra keyword searches of a question's items (`parts`, `part_depth` each), and
    a named time's days, whose own best candidates join each list (a second top-k)."""

    dense: list[float] | None
    terms: list[str]
    k: int
    parts: list[list[str]] = field(default_factory=list)
    part_depth: int = 0
    window: tuple[date, date] | None = None


@dataclass
class Candidates:
    dense: Ranked = field(default_factory=list)
    sparse: Ranked = field(default_factory=list)
    parts: list[Ranked] = field(default_factory=list)
    payloads: dict[str, dict] = field(default_factory=dict)  # every candidate's payload, "text" included
