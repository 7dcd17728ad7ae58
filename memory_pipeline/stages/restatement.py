"""One statement said twice in other words (pure): the Observer keeps one fact for it, the ledger one event.

"The SQLite database (`__store.db`) is NOT required." after "The SQLite database is NOT required for session
functionality!" says it again: every word of the shorter (three or more, stop words out, frames such as "Finding:"
or "User stated:" left out) is in the longer, but for the details one of them names (a path, a backticked name),
with the same polarity and the same numbers. "I prefer answers in Klingon in all my projects" does not say "I prefer
short answers in all my projects" again (one word differs: that is the statement), nor does "… is required" (the
other polarity) or "port 6380" after "port 6379" (other numbers): those are other statements, a conflict or a
correction. Callers merge only what the same speakers said (a user's words and a web page's are never one fact).
"""

from __future__ import annotations

from functools import lru_cache

from memory_pipeline.stages.ledger.conflicts import signature
from memory_pipeline.stages.offline.reflector_rules import clean_fact, specifics, words

MIN_WORDS = 3  # a shorter statement is too little to tell one from another


def says_again(first: str, second: str, share: float = 1.0) -> bool:
    """Whether `second` states what `first` states, in fewer or other words: `share` of the shorter's words in the
    longer (all of them, unless a caller that merges lines of one day asks for fewer: the Reflector's 0.75)."""
    (words_one, numbers_one, negated_one), (words_two, numbers_two, negated_two) = _read(first), _read(second)
    small, large = sorted((words_one, words_two), key=len)
    return negated_one == negated_two and numbers_one == numbers_two and len(small) >= MIN_WORDS and (
        len(small & large) >= share * len(small))


@lru_cache(maxsize=4096)
def _read(text: str) -> tuple[frozenset[str], frozenset[str], bool]:
    """A fact's statement without its frame: its plain words (not the details it names), its numbers, whether it is
    negated (a window's facts are each compared with every fact before them)."""
    statement = clean_fact(text)[0]
    details = specifics(statement)
    _, numbers, negated = signature(statement)
    outside = statement.lower()
    for detail in details:  # "store" stays in "The SQLite store (`__store.db`)": said outside the detail too
        outside = outside.replace(detail, " ")
    plain = frozenset(w for w in words(outside) if not w[0].isdigit())
    return plain, numbers, negated
