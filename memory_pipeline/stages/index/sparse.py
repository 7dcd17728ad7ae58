"""BM25-style sparse vectors for keyword search (pure).

The document side carries BM25 term-frequency saturation (`saturation`: k1 1.2, b 0.75, a term's
frequency against the document's length over the collection's average); the IDF part is applied
by Qdrant (`Modifier.Idf` on the "bm25" sparse vector: ln(1 + (N − n + 0.5) / (n + 0.5)), the
textbook IDF). A query is its terms at value 1, so a point's score is Σ idf · saturation over the
terms it shares with the query: textbook BM25. Token ids are a stable 31-bit crc32 of the token, so
vectors written by one process match queries made by another.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter

DEFAULT_AVG_LEN = 60.0  # tokens in a typical indexed text (a message or an observation block)
# Textbook BM25. recall@10 (hybrid, product ranking) against the former k1 0.9 b 0.4: LoCoMo dev 0.771 →
# 0.778, lme-dev 0.644 → 0.674 (145 questions of a partial ingest): lme-dev's assistant replies are
# ten times its users' turns, and without length normalization their many words outrank the turn that
# holds the answer; LoCoMo's turns are of one length and hardly care.
K1 = 1.2
B = 0.75
# The version of `tokenize`'s terms. A store that keeps keyword values per point (the Edge shard's
# `vectors.bm25.json` records the version its values were made with) re-keys every point at its next
# open when this changes: 1 the first stemmer, 2 with -ied and the doubled consonant undone.
KEYS_VERSION = 2

STOP_WORDS = frozenset(
    """
    a an and are as at be been being but by can could did do does doing for from had has have
    having he her here hers him his how i if in into is it its itself just me my no nor not of
    off on once only or other our ours out over own same she should so some such than that the
    their theirs them then there these they this those through to too under until up very was we
    were what when where which while who whom why will with would you your yours
    """.split()
)

# An identifier-ish chunk: word characters joined by `.`, `/` or `-` (`_` is a word character).
CHUNK = re.compile(r"\w+(?:[./\-]\w+)*")
SEPARATORS = re.compile(r"[_./\-]+")
CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _stem(token: str) -> str:
    """Light suffix stripping for plain words: plural s, -ies and -ied (studies, studied: study), -ing
    and -ed with a doubled consonant undone as Porter's stemmer does (planning, planned: plan; not l, s
    or z: falling is fall)."""
    if not token.isalpha():
        return token
    if token.endswith(("ies", "ied")) and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith("sses"):
        return token[:-2]
    if token.endswith("ing") and len(token) - 3 >= 4:
        return _undouble(token[:-3])
    if token.endswith("ed") and len(token) - 2 >= 4:
        return _undouble(token[:-2])
    if token.endswith("s") and not token.endswith(("ss", "us", "is")) and len(token) >= 4:
        return token[:-1]
    return token


def _undouble(stem: str) -> str:
    """A stem ending in a doubled consonant other than l, s or z loses one (plann: plan)."""
    if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in "aeioulsz":
        return stem[:-1]
    return stem


def _keep(token: str) -> bool:
    if token in STOP_WORDS:
        return False
    return len(token) > 1 or token.isdigit()


def _parts(chunk: str) -> list[str]:
    """The pieces of an identifier: split on _ . / - and on camelCase boundaries."""
    pieces: list[str] = []
    for part in SEPARATORS.split(chunk):
        pieces.extend(p for p in CAMEL_BOUNDARY.split(part) if p)
    return pieces


def tokenize(text: str) -> list[str]:
    """Lowercased word tokens; identifiers also yield their parts, the whole one kept."""
    tokens: list[str] = []
    for match in CHUNK.finditer(text):
        chunk = match.group(0)
        parts = _parts(chunk)
        if len(parts) > 1:
            whole = chunk.lower().strip("_")
            if _keep(whole):
                tokens.append(whole)
        for part in parts:
            token = part.lower()
            if _keep(token):
                tokens.append(_stem(token))
    return tokens


def weighted_counts(own: str, borrowed: str, borrowed_weight: float) -> tuple[dict[str, float], float]:
    """Term frequencies and length of a text whose `borrowed` words count `borrowed_weight` each."""
    counts: dict[str, float] = {}
    own_tokens, borrowed_tokens = tokenize(own), tokenize(borrowed)
    for tokens, weight in ((own_tokens, 1.0), (borrowed_tokens, borrowed_weight)):
        for token in tokens:
            counts[token] = counts.get(token, 0.0) + weight
    return counts, len(own_tokens) + borrowed_weight * len(borrowed_tokens)


def token_id(token: str) -> int:
    """A stable 31-bit id for a token (crc32; Python's hash() changes per process)."""
    return zlib.crc32(token.encode("utf-8")) & 0x7FFFFFFF


def saturation(tf, length, avg_len, k1: float = K1, b: float = B):
    """BM25's term-frequency part: tf·(k1+1) / (tf + k1·(1 − b + b·length/avg_len)); floats or
    numpy arrays alike (the recall index computes whole postings at once)."""
    return tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * length / avg_len))


def keyword_vector(counts: dict[str, float], length: float, avg_len: float) -> tuple[list[int], list[float]]:
    """(indices, values) sorted by index: each term's `saturation` (a document's weighted term
    frequencies and length, `weighted_counts`), terms whose ids collide merged before saturating."""
    by_id: dict[int, float] = {}
    for token, tf in counts.items():
        key = token_id(token)
        by_id[key] = by_id.get(key, 0.0) + tf
    indices = sorted(by_id)
    return indices, [float(saturation(by_id[i], length, max(avg_len, 1e-9))) for i in indices]


def sparse_vector(text: str, avg_len: float = DEFAULT_AVG_LEN) -> tuple[list[int], list[float]]:
    """`keyword_vector` of a whole text at a fixed average length (the Qdrant server's collection)."""
    tokens = tokenize(text)
    counts: Counter[str] = Counter(tokens)
    return keyword_vector(dict(counts), len(tokens), avg_len)
