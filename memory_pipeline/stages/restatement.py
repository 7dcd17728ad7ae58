"""One statement said twice in other words (pure): the Observer keeps one fact for it, the ledger one event.

"The SQLite database (`__store.db`) is NOT required." after "The SQLite database is NOT required for session
functionality!" says it again: nearly all the words of the shorter are in the longer (the Reflector's `restates`,
frames such as "Finding:" or "User stated:" left out), with the same polarity and the same numbers. "… is required"
(the other polarity) or "port 6380" after "port 6379" (other numbers) is another statement: a conflict or a correction.
"""

from __future__ import annotations

from functools import lru_cache

from memory_pipeline.stages.ledger.conflicts import signature
from memory_pipeline.stages.offline.reflector_rules import clean_fact, restates


def says_again(first: str, second: str) -> bool:
    """Whether `second` states what `first` states, in fewer or other words."""
    (one, numbers_one, negated_one), (two, numbers_two, negated_two) = _read(first), _read(second)
    return negated_one == negated_two and numbers_one == numbers_two and restates(one, two)


@lru_cache(maxsize=4096)
def _read(text: str) -> tuple[str, frozenset[str], bool]:
    """A fact's statement without its frame, its numbers and whether it is negated (a window's facts are each
    compared with every fact before them)."""
    statement = clean_fact(text)[0]
    _, numbers, negated = signature(statement)
    return statement, numbers, negated
