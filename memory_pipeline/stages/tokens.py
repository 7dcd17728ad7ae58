"""A cheap token estimate, good enough for budgets and for the offline provider's accounting."""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """About one token per four characters, rounded up (0 for empty text)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)
