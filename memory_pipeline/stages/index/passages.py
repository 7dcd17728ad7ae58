"""A user's turn → its passages, the "passages" tier (pure): best-passage dense scoring.

all-MiniLM-L6-v2 averages a turn into one vector, so the one sentence of a turn that states a fact
("I graduated with a degree in Business Administration, which has helped me in my new role. Do you
have any advice on…") is diluted by the requests around it. A user's turn longer than MIN_CHARS
characters is cut into windows of whole sentences, at most WINDOW_WORDS words each and sharing none,
at most MAX_WINDOWS a turn; each window is embedded alone (no date, no previous turn) as a point of
its own whose id names its turn (`passage_id`, `turn_of`; the payload's `passage_of` says it too).
Recall scores a turn by the best of its own vector and its windows' (MaxP, Dai & Callan 2019); the
windows have no keyword vector and are never hits themselves.

Measured (docs/recall.md, "How a query is ranked"; recall@10 / @5): lme-dev 0.765 / 0.658 →
0.791 / 0.702, LoCoMo 0.795 / 0.708 → 0.802 / 0.715, every lme-dev question type at or above; windows
of the assistant's replies, or on the keyword side, were worse on both sets.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Iterator

TIER = "passages"
MIN_CHARS = 100  # a shorter turn is one sentence or two: its own vector is its passage
WINDOW_WORDS = 30  # about two sentences; 20 and 40 were no better on both sets together
MAX_WINDOWS = 6  # a pasted page does not need 50 windows: its first six carry what the user said
LONG_SENTENCE_WORDS = 60  # a sentence longer than this (a run-on, a paste without stops) is cut in pieces
ROLES = ("user",)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(text: str) -> list[list[str]]:
    """The text's sentences as word lists (an over-long one in LONG_SENTENCE_WORDS pieces)."""
    found: list[list[str]] = []
    for sentence in _SENTENCE_END.split(text):
        words = sentence.split()
        while words:
            found.append(words[:LONG_SENTENCE_WORDS])
            words = words[LONG_SENTENCE_WORDS:]
    return found


def windows(text: str, width: int = WINDOW_WORDS, at_most: int = MAX_WINDOWS) -> list[str]:
    """Consecutive sentences joined while they fit in `width` words (a longer sentence stands alone),
    no sentence in two windows; the first `at_most`."""
    parts = sentences(text)
    found: list[str] = []
    start = 0
    while start < len(parts) and len(found) < at_most:
        end, words = start, 0
        while end < len(parts) and (words == 0 or words + len(parts[end]) <= width):
            words += len(parts[end])
            end += 1
        found.append(" ".join(word for sentence in parts[start:end] for word in sentence))
        start = end
    return found


PAYLOAD_FIELDS = ("date", "session_id", "project", "scope", "created_ts")  # what the filters read, as the turn's
_TURN_VERSION, _FIRST_VERSION = 5, 8  # the UUID version nibble of a turn's id (uuid5) and of its first passage's
_OTHER_VERSIONS = frozenset(format(n, "x") for n in range(16)  # the version digits of no passage, as the
                            if not _FIRST_VERSION <= n < _FIRST_VERSION + MAX_WINDOWS)  # canonical form writes them


def passage_id(turn_id: str, number: int) -> str:
    """The id of a turn's passage `number`: the turn's own id (a uuid5, `models.stable_id`) with its version
    nibble set to 8 + number, so a search hit names its turn without a payload read (`turn_of`) and no
    passage id is ever another point's (every other id is a uuid5)."""
    raw = bytearray(uuid.UUID(turn_id).bytes)
    if raw[6] >> 4 != _TURN_VERSION or not 0 <= number < MAX_WINDOWS:
        raise ValueError(f"no passage {number} of {turn_id}: passages are of uuid5 turn ids, at most {MAX_WINDOWS}")
    raw[6] = (raw[6] & 0x0F) | (_FIRST_VERSION + number) << 4
    return str(uuid.UUID(bytes=bytes(raw)))


def turn_of(point_id: str) -> str | None:
    """The turn a passage's id names (`passage_id`); None for any other point's id."""
    text = str(point_id)
    if len(text) == 36 and text[8] + text[13] + text[18] + text[23] == "----" and text[14] in _OTHER_VERSIONS:
        return None  # the canonical form's version digit names no passage: the dense search's 200 hits a
        # query, most of them turns, read without a UUID each
    try:
        raw = bytearray(uuid.UUID(text).bytes)
    except ValueError:
        return None
    if not _FIRST_VERSION <= raw[6] >> 4 < _FIRST_VERSION + MAX_WINDOWS:
        return None
    raw[6] = (raw[6] & 0x0F) | _TURN_VERSION << 4
    return str(uuid.UUID(bytes=bytes(raw)))


def passage_points(turn_id: str, payload: dict) -> list[tuple[str, str, dict]]:
    """A message point's passages as (id, text, payload); none for an assistant's turn or a short one. A
    passage's content is its turn's (the turn's id changes with its text), so its id needs no hash of it."""
    own = str(payload.get("message") or "")
    if payload.get("tier") != "messages" or payload.get("role") not in ROLES or len(" ".join(own.split())) <= MIN_CHARS:
        return []
    base = {field: payload.get(field) for field in PAYLOAD_FIELDS if field in payload}
    return [(passage_id(turn_id, number), text,
             base | {"tier": TIER, "kind": "passage", "passage_of": turn_id, "priority": None, "stale": False})
            for number, text in enumerate(windows(own))]


def turn_passages(points: Iterable[tuple[str, dict]]) -> Iterator[tuple[str, str, dict]]:
    """Every passage of the (id, payload) message points, in order."""
    for turn_id, payload in points:
        yield from passage_points(turn_id, payload)
