"""The keyword anchor for `bench recall --quality`: plain BM25 over the raw turns of a workspace.

The same turns the product indexed (every message point's own text, without the date, the previous
turn or any observation), scored by textbook Okapi BM25 (k1 1.5, b 0.75, as rank_bm25's BM25Okapi)
over lowercased words with English stop words dropped and no stemming, top 10 turns, no fusion, no
time. Computed in the same run as the product's answers, so a table row compares like with like.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

from memory_pipeline.models import RecallHit
from memory_pipeline.stages.index.sparse import STOP_WORDS

WORD = re.compile(r"\w+")
K1 = 1.5
B = 0.75


def words(text: str) -> list[str]:
    return [w for w in WORD.findall(text.lower()) if w not in STOP_WORDS]


class TurnBM25:
    """Turns as (message ids, text); `search` returns the top turns as RecallHits."""

    def __init__(self, turns: list[tuple[list[str], str]]) -> None:
        self.turns = turns
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        lengths = []
        for row, (_, text) in enumerate(turns):
            counts = Counter(words(text))
            lengths.append(sum(counts.values()))
            for word, count in counts.items():
                self.postings[word].append((row, count))
        self.lengths = lengths
        self.average = sum(lengths) / len(lengths) if lengths else 1.0

    def idf(self, word: str) -> float:
        n, found = len(self.turns), len(self.postings.get(word, ()))
        return math.log(1.0 + (n - found + 0.5) / (found + 0.5))

    def search(self, query: str, limit: int = 10) -> list[RecallHit]:
        scores: dict[int, float] = defaultdict(float)
        for word in words(query):
            idf = self.idf(word)
            for row, tf in self.postings.get(word, ()):
                norm = K1 * (1.0 - B + B * self.lengths[row] / self.average)
                scores[row] += idf * tf * (K1 + 1.0) / (tf + norm)
        best = sorted(scores.items(), key=lambda rs: (-rs[1], rs[0]))[:limit]
        return [RecallHit(id=str(row), tier="messages", text=self.turns[row][1][:80], score=round(score, 4), date="",
                          session_id="", source_message_ids=self.turns[row][0]) for row, score in best]


def workspace_turns(workspace) -> TurnBM25:
    """The anchor over the message points of a workspace's store (the Edge shard or a server)."""
    from memory_pipeline.config import Settings
    from memory_pipeline.flows.recall.engine import RecallEngine

    store = RecallEngine(workspace, Settings.from_env()).store
    if store is None:
        return TurnBM25([])
    with store.session():
        points = list(store.scroll_all(payload_filter={"tier": "messages"}))
    return TurnBM25([(list(p.payload.get("source_message_ids") or []), str(p.payload.get("message") or ""))
                     for p in sorted(points, key=lambda p: p.id)])


def index_turns(index) -> TurnBM25:
    """The anchor over the message points of a recall index."""
    turns = [(list(p.get("source_message_ids") or []), str(p.get("message") or ""))
             for p in index.payloads if p.get("tier") == "messages"]
    return TurnBM25(turns)
