"""What goes into and comes out of the vector store, and the filter dict → Qdrant Filter."""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator
from qdrant_client import models

from memory_pipeline.errors import BadInputError

RANGE_SUFFIXES = ("_gte", "_lte", "_gt", "_lt")


class StorePoint(BaseModel):
    """One point: a UUID id, its text, optional dense and sparse vectors, and payload."""

    id: str
    text: str
    dense: list[float] | None = None
    sparse: tuple[list[int], list[float]] | None = None
    payload: dict[str, Any] = Field(default_factory=dict)

    @field_validator("id")
    @classmethod
    def _uuid(cls, value: str) -> str:
        try:
            return str(uuid.UUID(value))
        except ValueError as exc:
            raise ValueError(f"point id must be a UUID string (use models.stable_id), got {value!r}") from exc

    @model_validator(mode="after")
    def _sparse_pairs(self) -> "StorePoint":
        if self.sparse is not None and len(self.sparse[0]) != len(self.sparse[1]):
            raise ValueError("sparse indices and values differ in length")
        return self


class StoreHit(BaseModel):
    """A query result: the point id, its score for that query, and its payload."""

    id: str
    score: float
    payload: dict[str, Any] = Field(default_factory=dict)


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
