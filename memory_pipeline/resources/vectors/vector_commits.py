"""One SQLite commit per upsert batch in Qdrant local mode, instead of one per point.

qdrant-client's local mode persists each point in its own transaction (`with connection:`), so
writing 100k points meant 100k commits, each with its fsyncs: ~4 ms a point, as long as embedding
them. While a batch is written, the collection's connection is wrapped so that those blocks do not
commit; the batch is committed once at the end, or rolled back as a whole if it fails (the client
is closed with the session, so no in-memory copy outlives a rolled-back batch). The server mode and
the in-memory engine have no such connection and are left alone.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from typing import Any


class _NoCommit:
    """The connection, but `with` on it neither commits nor rolls back (the batch does)."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    def __enter__(self) -> sqlite3.Connection:
        return self._connection

    def __exit__(self, *exc: object) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)


def _persistence(client: Any, collection: str) -> Any | None:
    """The local collection's CollectionPersistence, or None (server, in-memory, another version)."""
    local = getattr(client, "_client", None)
    found = getattr(local, "collections", {}).get(collection) if local is not None else None
    storage = getattr(found, "storage", None)
    return storage if isinstance(getattr(storage, "storage", None), sqlite3.Connection) else None


@contextlib.contextmanager
def one_commit(client: Any, collection: str) -> Iterator[None]:
    """The local-mode writes inside share one transaction: committed at the end, rolled back on error."""
    persistence = _persistence(client, collection)
    if persistence is None:
        yield
        return
    connection = persistence.storage
    persistence.storage = _NoCommit(connection)
    try:
        yield
        connection.commit()
    except BaseException:
        connection.rollback()
        raise
    finally:
        persistence.storage = connection
