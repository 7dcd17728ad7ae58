"""`store move`: the workspace's points copied between the embedded Edge shard and a Qdrant server,
verified by id and content hash. Vectors and payloads go as stored (nothing is embedded again);
the source is left as it was, so a move can be repeated, and undone by moving back."""

from __future__ import annotations

from dataclasses import dataclass

from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError, ServiceError
from memory_pipeline.resources.vectors.edge_migration import copy_points, unverified
from memory_pipeline.resources.vectors.stores import workspace_store
from memory_pipeline.resources.workspace import Workspace

EMBEDDED = "embedded"


@dataclass
class Moved:
    source: str
    target: str
    points: int
    written: int


def move_points(source, target) -> Moved:
    """Every point of `source` into `target` (those already there with the same content hash are
    skipped); ServiceError when the target then lacks any."""
    target.ensure_collection()
    written = copy_points(source, target)
    missing = unverified(source, target)
    if missing:
        raise ServiceError(f"{missing} points did not arrive in {target.where()}; the source is unchanged, run again")
    return Moved(source.where(), target.where(), target.count(), written)


def move_store(workspace: Workspace, settings: Settings, to: str, dimension: int) -> Moved:
    """From the store in use (QDRANT_URL, else the embedded shard) to `to`: a server URL or "embedded"."""
    def store(url: str | None):
        return workspace_store(workspace.state, url, dimension=dimension, api_key=settings.qdrant_api_key,
                               lock_timeout=settings.qdrant_lock_timeout)

    if to == EMBEDDED:
        if not settings.qdrant_url:
            raise BadInputError("the workspace's store is already the embedded one (QDRANT_URL is not set)")
        return move_points(store(settings.qdrant_url), store(None))
    if not to.startswith(("http://", "https://")):
        raise BadInputError(f"--to takes a Qdrant server URL (http://…, https://…) or {EMBEDDED!r}, got {to!r}")
    if settings.qdrant_url == to:
        raise BadInputError(f"the workspace's store is already {to}")
    return move_points(store(settings.qdrant_url), store(to))
