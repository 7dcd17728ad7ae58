"""What goes into and comes out of the vector store, and the filter dict → Qdrant Filter."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import StoreHit, StorePoint

if TYPE_CHECKING:
    from qdrant_client import models

__all__ = ["StoreHit", "StorePoint", "build_filter", "filter_conditions"]

RANGE_SUFFIXES = ("_gte", "_lte", "_gt", "_lt")


def range_suffix(key: str) -> str | None:
    """The range bound a filter key ends with ("date_gte" → "_gte"), None for a plain field."""
    return next((s for s in RANGE_SUFFIXES if key.endswith(s)), None)


def filter_field(key: str) -> str:
    """The payload field a filter key names ("date_gte" → "date")."""
    suffix = range_suffix(key)
    return key[: -len(suffix)] if suffix else key


def filter_conditions(spec: dict[str, Any], *, value: Callable[[str, Any], Any], any_of: Callable[[str, list], Any],
                      numbers: Callable[[str, dict], Any], dates: Callable[[str, dict], Any]) -> list[Any]:
    """The conditions of a filter dict, each built by the engine's own constructor (the server's
    qdrant-client models here, Qdrant Edge's in resources/vectors/edge_store.py): `value(key, v)` for one
    value, `any_of(key, values)` for a list, `numbers(field, bounds)` / `dates(field, bounds)` for
    `<field>_gte/_lte/_gt/_lt` bounds (all numbers or all ISO date strings). None values are ignored;
    an empty list, another value type or mixed bounds is a BadInputError."""
    must: list[Any] = []
    ranges: dict[str, dict[str, Any]] = {}
    for key, item in spec.items():
        if item is None:
            continue
        suffix = range_suffix(key)
        if suffix is not None:
            ranges.setdefault(key[: -len(suffix)], {})[suffix[1:]] = item
        elif isinstance(item, (list, tuple, set, frozenset)):
            if not item:
                raise BadInputError(f"filter {key!r} has an empty list of values")
            must.append(any_of(key, list(item)))
        elif isinstance(item, (str, int, bool)):
            must.append(value(key, item))
        else:
            raise BadInputError(f"filter {key!r} has an unsupported value {item!r}")
    for field, bounds in ranges.items():
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in bounds.values()):
            must.append(numbers(field, bounds))
        elif all(isinstance(v, str) for v in bounds.values()):
            must.append(dates(field, bounds))
        else:
            raise BadInputError(f"range bounds for {field!r} must be all numbers or all date strings: {bounds}")
    return must


def build_filter(spec: dict[str, Any] | None) -> models.Filter | None:
    """`{"tier": "messages", "date_gte": "2026-01-01", "priority": ["high"]}` → a Qdrant Filter.

    Keys are payload field names; `<field>_gte/_lte/_gt/_lt` are range bounds (numbers or
    ISO dates); a list matches any of its values; None values are ignored.
    """
    if not spec:
        return None
    from qdrant_client import models

    must = filter_conditions(
        spec,
        value=lambda key, v: models.FieldCondition(key=key, match=models.MatchValue(value=v)),
        any_of=lambda key, vs: models.FieldCondition(key=key, match=models.MatchAny(any=vs)),
        numbers=lambda field, bounds: models.FieldCondition(key=field, range=models.Range(**bounds)),
        dates=lambda field, bounds: models.FieldCondition(key=field, range=models.DatetimeRange(**bounds)),
    )
    return models.Filter(must=must) if must else None
