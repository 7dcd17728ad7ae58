"""`recall()`: hybrid search over observations and transcript messages, for the CLI, hooks and Dagster.

By default the query goes to the recall service (started on demand, it keeps the model and the
index in memory); when the service cannot start, the search runs in this process.
"""

from __future__ import annotations

import sys
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError, ServiceError
from memory_pipeline.flows.recall.protocol import PointsReply, PointsRequest, RecallReply, RecallRequest
from memory_pipeline.models import RecallHit
from memory_pipeline.resources.daemons import recall_service
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.recall.rank import RecallFilters, check_filters, check_limit, clean_query

Reply = TypeVar("Reply", bound=BaseModel)
_ENGINES: dict[str, object] = {}  # root → RecallEngine (imported on first in-process use: qdrant-client
# and numpy take ~1.3 s to import, which a hook talking to the service should not pay)


def as_timestamp(now: datetime | date | float | int | None) -> float | None:
    """Unix seconds for `now` (a naive datetime is taken as UTC; a date as its midnight UTC)."""
    if now is None or isinstance(now, (int, float)):
        return None if now is None else float(now)
    if isinstance(now, datetime):
        return (now if now.tzinfo else now.replace(tzinfo=UTC)).timestamp()
    if isinstance(now, date):
        return datetime.combine(now, time(), tzinfo=UTC).timestamp()
    raise BadInputError(f"now must be a datetime, a date or unix seconds, got {now!r}")


def service_command(workspace: Workspace, settings: Settings) -> list[str]:
    """The recall service's command line; it builds its own settings from the same environment."""
    return [sys.executable, "-m", "memory_pipeline.services.recall_server", "--workspace", str(workspace.root),
            "--idle-timeout", str(settings.recall_idle_timeout)]


def start_service(workspace: Workspace, settings: Settings) -> dict:
    """The running service's status, started first when absent (MEMORY_RECALL_START_TIMEOUT bounds
    the wait for a cold one: model + index load, ~40 s at 100k local points)."""
    return recall_service.ensure_service(workspace, settings.runtime_dir, service_command(workspace, settings),
                                         settings.recall_start_timeout)


def local_engine(workspace: Workspace, settings: Settings):
    """The in-process RecallEngine for a workspace (kept for the life of the process)."""
    from memory_pipeline.flows.recall.engine import RecallEngine  # noqa: PLC0415 — numpy: not in a hook's process

    key = str(workspace.root)
    if key not in _ENGINES:
        _ENGINES[key] = RecallEngine(workspace, settings)
    return _ENGINES[key]


def store_is_empty(workspace: Workspace, settings: Settings) -> bool:
    """The embedded store with no shard folder yet (nor a former week store to migrate): nothing was
    ever indexed."""
    return not settings.qdrant_url and not any(workspace.state_path(name).exists() for name in ("vectors", "qdrant"))


def via_service(workspace: Workspace, settings: Settings, request: RecallRequest) -> list[RecallHit]:
    """Ask the service (starting it if needed); ServiceError when it cannot answer."""
    return answer_as(RecallReply, ask_service(workspace, settings, "recall", request)).hits


def answer_as(model: type[Reply], answer: dict) -> Reply:
    """The service's answer as its reply model; ServiceError when it is not one (a broken service)."""
    try:
        return model.model_validate({key: value for key, value in answer.items() if key != "ok"})
    except ValidationError as exc:
        raise _ServiceAnswerError(f"the recall service sent a reply that is not a {model.__name__}: {exc}") from None


def ask_service(workspace: Workspace, settings: Settings, op: str, request: BaseModel) -> dict:
    """One request to the service (started if needed): its answer, or BadInputError / ServiceError."""
    path = recall_service.socket_path(workspace, settings.runtime_dir)
    payload = {"op": op, "args": request.model_dump(mode="json")}
    try:
        if not path.exists():
            raise ServiceError("no recall service socket")
        answer = recall_service.request(path, payload)  # the common case: one round trip
    except ServiceError:
        start_service(workspace, settings)
        answer = recall_service.request(path, payload)
    if not answer.get("ok"):
        error = str(answer.get("error", "unknown error"))
        if error.startswith("unknown op"):  # a service started by an older version: answer in process
            raise ServiceError(f"the running recall service predates {op!r} ({error})")
        raise BadInputError(error) if answer.get("kind") == "bad_input" else _ServiceAnswerError(error)
    return answer


class _ServiceAnswerError(ServiceError):
    """The service answered with an error (not worth retrying in process)."""


def recall(
    workspace: Workspace | str | Path,
    query: str,
    *,
    settings: Settings,
    limit: int = 10,
    tier: str = "all",
    since: str | None = None,
    until: str | None = None,
    priority: str | None = None,
    session_id: str | None = None,
    project: str | None = None,
    rewrite: bool = False,
    record: bool = True,
    now: datetime | date | float | None = None,
    use_service: bool = True,
) -> list[RecallHit]:
    """The best `limit` hits for `query` (at most 10 by default: the inject cap).

    Raises BadInputError for an unusable query or filter, ServiceError when the store fails.
    """
    ws = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
    cleaned = clean_query(query)
    filters = check_filters(RecallFilters(tier, since, until, priority, session_id, project))
    check_limit(limit)
    if store_is_empty(ws, settings):
        return []
    ws.create()
    request = RecallRequest.of(cleaned, limit, filters, rewrite=rewrite, record=record, now=as_timestamp(now))
    if use_service:
        try:
            return via_service(ws, settings, request)
        except _ServiceAnswerError:
            raise
        except ServiceError as exc:
            print(f"memory-pipeline: recall service unavailable, searching in this process: {exc}", file=sys.stderr)
    from memory_pipeline.flows.recall.engine import SearchRequest  # noqa: PLC0415 — numpy: not in a hook's process

    return local_engine(ws, settings).search(SearchRequest.of(request), wait=30.0)


def stored_points(workspace: Workspace | str | Path, *, settings: Settings, ids: list[str] | None = None,
                  session_id: str | None = None, use_service: bool = True) -> list[dict]:
    """The indexed points named by `ids`, or of one session (payload + "id" + "text"), from the
    index the recall service holds (in this process when it cannot start)."""
    ws = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
    if (ids is None) == (session_id is None):
        raise BadInputError("name the points by ids or by session, not both")
    if store_is_empty(ws, settings):
        return []
    if use_service:
        try:
            request = PointsRequest(ids=ids, session_id=session_id)
            return answer_as(PointsReply, ask_service(ws.create(), settings, "points", request)).points
        except _ServiceAnswerError:
            raise
        except ServiceError as exc:
            print(f"memory-pipeline: recall service unavailable, reading the index in this process: {exc}",
                  file=sys.stderr)
    return local_engine(ws, settings).points(ids, session_id)
