"""Echo/fizzle, pure: decide which injected memories an agent's answer used, and the bounded score
change each gets (+0.1 used, −0.05 ignored).

A memory is used when the answer repeats what is specific to it (identifiers, paths, numbers,
uncommon words), or says the same thing in other words (embedding similarity, computed by the
caller). The thresholds come from the labelled set in memory_pipeline_tests/fixtures/labels/echo.json.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory_pipeline.stages.index.sparse import STOP_WORDS

USED_DELTA, IGNORED_DELTA = 0.1, -0.05
SCORE_BOUNDS = (-0.5, 0.5)
MIN_SPECIFIC_MATCHES = 2  # two specific tokens of a memory repeated in the answer: used
SPECIFIC_SHARE = 0.5  # ... or half of them
COSINE_USED = 0.5  # the closest passage says the same thing (labelled set: used ≥ 0.59, unused ≤ 0.24)

_IDENTIFIER = re.compile(r"[A-Za-z_][\w.-]*[._/-][\w./-]+|[a-z]+[A-Z]\w*|\w*\d\w*|`[^`]+`")
_WORD = re.compile(r"[a-z][a-z0-9_'-]{3,}")
COMMON = frozenset("""use using used make made need needs should would could always never also when then than
that this with from into have been were will what which there their they them your about after before
while other some more most very just like only same each every here does done true false""".split())


@dataclass(frozen=True)
class Injected:
    id: str
    text: str


@dataclass(frozen=True)
class Verdict:
    id: str
    used: bool
    matched: list[str]
    cosine: float


def specific_tokens(text: str) -> set[str]:
    """What is particular to a memory: identifiers, paths, numbers, and uncommon words."""
    tokens = {t.strip("`").lower().rstrip(".,;:") for t in _IDENTIFIER.findall(text)}
    words = {w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS and w not in COMMON}
    return {t for t in tokens | words if len(t) >= 3}


def answer_tokens(text: str) -> set[str]:
    return {t.strip("`").lower().rstrip(".,;:") for t in _IDENTIFIER.findall(text)} | set(_WORD.findall(text.lower()))


def judge(memory: Injected, answer: set[str], cosine: float) -> Verdict:
    specific = specific_tokens(memory.text)
    matched = sorted(specific & answer)
    share = len(matched) / len(specific) if specific else 0.0
    used = len(matched) >= MIN_SPECIFIC_MATCHES or share >= SPECIFIC_SHARE or cosine >= COSINE_USED
    return Verdict(memory.id, used, matched, round(cosine, 4))


def next_score(score: float, used: bool) -> float:
    low, high = SCORE_BOUNDS
    return round(min(high, max(low, score + (USED_DELTA if used else IGNORED_DELTA))), 4)


def answer_passages(text: str, size: int = 400) -> list[str]:
    """The answer cut into paragraph-sized passages (a memory echoes in one place, not the whole)."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    passages = []
    for paragraph in paragraphs or [text]:
        passages += [paragraph[i:i + size] for i in range(0, len(paragraph), size)]
    return passages[:50]
