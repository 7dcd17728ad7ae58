"""What goes into and comes out of the vector store, and the filter dict → Qdrant Filter."""

from __future__ import annotations

from typing import Any

from qdrant_client import models

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import StoreHit, StorePoint

__all__ = ["StoreHit", "StorePoint", "build_filter"]

RANGE_SUFFIXES = ("_gte", "_lte", "_gt", "_lt")


def _range(field: str, bounds: dict[str, Any]) -> models.FieldCondition:
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in bounds.values()):
        return models.FieldCondition(key=field, range=models.Range(**bounds))
    if all(isinstance(v, str) for v in bounds.values()):
        return models.FieldCondition(key=field, range=models.DatetimeRange(**bounds))
    raise BadInputError(f"range bounds for {field!r} must be all numbers or all date strings: {bounds}")


def build_filter(spec: dict[str, Any] | None) -> models.Filter | None:
    """`{"tier": "messages", "date_gte": "2026-01-01", "priority": ["high"]}` → a Qdrant Filter.

    Keys are payload field names; `<field>_gte/_lte/_gt/_lt` are range bounds (numbers or
    ISO dates); a list matches any of its values; None values are ignored.
    """
    if not spec:
        return None
    must: list[models.Condition] = []
    ranges: dict[str, dict[str, Any]] = {}
    for key, value in spec.items():
        if value is None:
            continue
        suffix = next((s for s in RANGE_SUFFIXES if key.endswith(s)), None)
        if suffix is not None:
            ranges.setdefault(key[: -len(suffix)], {})[suffix[1:]] = value
        elif isinstance(value, (list, tuple, set, frozenset)):
            if not value:
                raise BadInputError(f"filter {key!r} has an empty list of values")
            must.append(models.FieldCondition(key=key, match=models.MatchAny(any=list(value))))
        elif isinstance(value, (str, int, bool)):
            must.append(models.FieldCondition(key=key, match=models.MatchValue(value=value)))
        else:
            raise BadInputError(f"filter {key!r} has an unsupported value {value!r}")
    must.extend(_range(field, bounds) for field, bounds in ranges.items())
    return models.Filter(must=must) if must else None
