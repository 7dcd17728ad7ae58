"""Untrusted text shown to an agent as data: inside a code fence it cannot close (pure)."""

from __future__ import annotations

import re


def fenced(text: str) -> list[str]:
    """`text` in a code fence longer than any backtick run inside it, so it cannot close the fence."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}text", text, fence]
