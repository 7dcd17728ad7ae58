"""Vector arithmetic shared by the stages."""

from __future__ import annotations

from collections.abc import Sequence


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine of two unit vectors (the embedder returns unit vectors): their dot product."""
    return sum(x * y for x, y in zip(a, b, strict=False))
