"""BM25-style sparse vectors for keyword search (pure).

The document side carries BM25 term-frequency saturation; the IDF part is applied by Qdrant
(`Modifier.IDF` on the "bm25" sparse vector). Token ids are a stable 31-bit crc32 of the
token, so vectors written by one process match queries made by another.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter

DEFAULT_AVG_LEN = 60.0  # tokens in a typical indexed text (a message or an observation block)

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
    """Light suffix stripping for plain words: plural s, -ies, -ing, -ed."""
    if not token.isalpha():
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith("sses"):
        return token[:-2]
    if token.endswith("ing") and len(token) - 3 >= 4:
        return token[:-3]
    if token.endswith("ed") and len(token) - 2 >= 4:
        return token[:-2]
    if token.endswith("s") and not token.endswith(("ss", "us", "is")) and len(token) >= 4:
        return token[:-1]
    return token


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


def sparse_vector(
    text: str, k1: float = 1.2, b: float = 0.75, avg_len: float = DEFAULT_AVG_LEN
) -> tuple[list[int], list[float]]:
    """(indices, values) sorted by index: BM25 tf saturation per token, duplicates merged."""
    tokens = tokenize(text)
    if not tokens:
        return [], []
    counts: Counter[int] = Counter(token_id(t) for t in tokens)
    norm = k1 * (1.0 - b + b * len(tokens) / avg_len)
    indices = sorted(counts)
    values = [counts[i] * (k1 + 1.0) / (counts[i] + norm) for i in indices]
    return indices, values
