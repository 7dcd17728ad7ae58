"""The ids the product issues for what it asks a person to review: proposals and friction fixes.

An id reads `p-YYYYMMDD-NNN-xxxx` (`f-…` for a fix): the day the proposal is about, its number
that day (so ids sort in the order they were staged), and four characters drawn at random when it
is issued. The random part is what makes an id unguessable from outside: a transcript that plants
a ticked line, a marker or an "approve p-…" for the next id cannot know it. Ids issued before the
random part existed (`p-YYYYMMDD-NNN`) are still read everywhere an id is read: REVIEW.md,
MEMORY.md markers, `trace`, the ledger's links, `review approve`.

Drawing is the caller's: `issue_ids` takes `draw` (a function giving the random part), so this
module stays pure; `resources/proposals.random_suffix` is the draw the product uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable

SUFFIX_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read aloud or typed without doubt
SUFFIX_CHARS = 4
# one id anywhere in a text: the kind, the day, the number, and (ids issued since) the random part
ID_TEXT = rf"[pf]-\d{{8}}-\d{{3}}(?:-[{SUFFIX_ALPHABET}]{{{SUFFIX_CHARS}}})?"
ANY_ID = re.compile(rf"(?<![\w\-\u2011])(?P<id>{ID_TEXT})(?![\w\-\u2011])")
_PARTS = re.compile(rf"^(?P<kind>[pf])-(?P<day>\d{{8}})-(?P<number>\d{{3}})(?:-(?P<suffix>[{SUFFIX_ALPHABET}]{{{SUFFIX_CHARS}}}))?$")
MAX_PER_DAY = 999


def is_id(text: str, kind: str | None = None) -> bool:
    """`text` is a whole id (of `kind` "p" or "f" when given), old shape or new."""
    found = _PARTS.match(text or "")
    return found is not None and (kind is None or found.group("kind") == kind)


def issue_ids(day: str, existing_ids: list[str], count: int, draw: Callable[[], str], kind: str = "p") -> list[str]:
    """`count` new ids of `kind` for `day` (YYYY-MM-DD), numbered after the highest number that kind
    already used that day, each with a random part from `draw` (SUFFIX_CHARS of SUFFIX_ALPHABET)."""
    stamp = day.replace("-", "")
    used = [int(m.group("number")) for pid in existing_ids
            if (m := _PARTS.match(pid)) and m.group("day") == stamp and m.group("kind") == kind]
    start = max(used, default=0) + 1
    if start + count - 1 > MAX_PER_DAY:
        raise ValueError(f"more than {MAX_PER_DAY} {'fixes' if kind == 'f' else 'proposals'} on {day}")
    ids = []
    for number in range(start, start + count):
        suffix = draw()
        if len(suffix) != SUFFIX_CHARS or set(suffix) - set(SUFFIX_ALPHABET):
            raise ValueError(f"a random id part must be {SUFFIX_CHARS} of {SUFFIX_ALPHABET!r}, not {suffix!r}")
        ids.append(f"{kind}-{stamp}-{number:03d}-{suffix}")
    return ids
