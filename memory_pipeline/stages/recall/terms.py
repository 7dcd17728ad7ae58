"""The keyword terms of a question (pure): its words, less the light verbs that carry no subject.

"When did Caroline go to the support group?" is about the support group: "go" matches every turn
that goes anywhere, and in a long history its BM25 weight outranks the turn that names the group
with another verb ("I went to …" is stemmed apart from "go"). The verbs below say that something
happened, not what; the query keeps them when nothing else is left. Turns are indexed unchanged.
"""

from __future__ import annotations

from memory_pipeline.stages.index.sparse import tokenize

LIGHT_VERBS = frozenset(tokenize(
    "go goes going went gone get gets getting got gotten make makes making made take takes taking took taken "
    "come comes coming came give gives giving gave given"))


def query_terms(query: str) -> list[str]:
    """`tokenize(query)` less light verbs (all of them when nothing else is left)."""
    tokens = tokenize(query)
    kept = [t for t in tokens if t not in LIGHT_VERBS]
    return kept or tokens
