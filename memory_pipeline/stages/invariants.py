"""Invariants that asset checks guard, as pure functions returning the offending ids."""

from __future__ import annotations

from collections import Counter

from memory_pipeline.models import Observation


def duplicate_ids(observations: list[Observation]) -> list[str]:
    """Observation ids and fact ids that occur more than once."""
    ids = Counter(o.id for o in observations)
    ids.update(f.id for o in observations for f in o.facts)
    return sorted(i for i, n in ids.items() if n > 1)


def facts_without_source(observations: list[Observation]) -> list[str]:
    """Facts that cite no transcript message."""
    return sorted(f.id for o in observations for f in o.facts if not f.source_message_ids)
