"""The recall service's requests and replies, one model each, shared by the client
(flows/recall/client.py) and the service (services/recall_server.py).

On the wire they stay JSON lines: a request is `{"op": "recall" | "points", "args": {…}}` with the
request model's fields as `args`; a reply is `{"ok": true, …}` with the reply model's fields beside
`ok`, or `{"ok": false, "kind": …, "error": …}`. The client builds a request from values it has
already checked; the service reads one with `parse_request`, which turns anything else into a
BadInputError (an unknown field included), so a request is checked once, by its model.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import RecallHit
from memory_pipeline.stages.recall.rank import RecallFilters

Request = TypeVar("Request", bound=BaseModel)


class RecallRequest(BaseModel):
    """`op: recall`: one search, its filters flat (as `RecallFilters` names them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str
    limit: int = 10
    tier: str = "all"
    since: str | None = None
    until: str | None = None
    priority: str | None = None
    session_id: str | None = None
    project: str | None = None
    rewrite: bool = False
    record: bool = True
    now: float | None = None  # unix seconds; None = the current time
    mode: str = "hybrid"
    wait: float = 2.0  # seconds the service waits for a writer's shard before it answers from what it holds

    @classmethod
    def of(cls, query: str, limit: int, filters: RecallFilters, *, rewrite: bool, record: bool,
           now: float | None) -> RecallRequest:
        return cls(query=query, limit=limit, tier=filters.tier, since=filters.since, until=filters.until,
                   priority=filters.priority, session_id=filters.session_id, project=filters.project,
                   rewrite=rewrite, record=record, now=now)

    def filters(self) -> RecallFilters:
        return RecallFilters(tier=self.tier, since=self.since, until=self.until, priority=self.priority,
                             session_id=self.session_id, project=self.project)


class RecallTimings(BaseModel):
    embed_ms: float = 0.0
    search_ms: float = 0.0
    total_ms: float = 0.0


class RecallReply(BaseModel):
    hits: list[RecallHit]
    timings: RecallTimings | None = None


class PointsRequest(BaseModel):
    """`op: points`: the stored points named by `ids`, or of one session."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ids: list[str] | None = None
    session_id: str | None = None


class PointsReply(BaseModel):
    points: list[dict[str, Any]]


def parse_request(model: type[Request], args: object) -> Request:
    """A request's `args` as `model`; BadInputError naming the first field that is wrong."""
    try:
        return model.model_validate(args if args is not None else {})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "args"
        op = model.__name__.removesuffix("Request").lower()
        raise BadInputError(f"bad {op} request: {where}: {first['msg']}") from None


def reply(model: BaseModel) -> dict[str, Any]:
    """A reply's wire form: `ok` and the model's fields."""
    return {"ok": True, **model.model_dump(mode="json")}
