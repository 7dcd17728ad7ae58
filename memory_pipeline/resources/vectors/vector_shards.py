"""The former local-mode stores, one per ISO week (`state/qdrant/<week>/`): read now only by the
migration into the Edge shard (resources/vectors/edge_migration.py). Why they were sharded:

Qdrant local mode reads every point of a store into memory each time the store is opened, and
each index asset opens it once per run; with one store for all history, a day's run slowed
as the history grew (the 30-day soak: 15 s → 42 s a day). So local mode keeps one store per
ISO week of the partition day (`state/qdrant/2026-W47/`): a run opens its own week, and only
readers that need everything (the recall index, `status`) open every week. A Qdrant server
needs none of this and keeps one collection.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import StorePoint

if TYPE_CHECKING:
    from memory_pipeline.resources.vectors.vector_store import VectorStore

WEEK_NAME = re.compile(r"^\d{4}-W\d{2}$")


def week_of(day: str) -> str:
    """'2026-11-22' → '2026-W47' (the ISO week, so a week's days share one store)."""
    try:
        year, week, _ = date.fromisoformat(day).isocalendar()
    except (TypeError, ValueError) as exc:
        raise BadInputError(f"not a day (YYYY-MM-DD): {day!r}") from exc
    return f"{year}-W{week:02d}"


def has_week_stores(root: Path) -> bool:
    """`root` holds week stores (a workspace's former local mode, `state/qdrant/`)."""
    return root.is_dir() and any(p.is_dir() and WEEK_NAME.match(p.name) for p in root.iterdir())


class ShardedStore:
    """Local mode: one `VectorStore` per ISO week under `root`, sharing one generation file.

    Writers take the shard of their day (`for_day`); the methods here span every shard.
    """

    def __init__(self, root: Path, *, dimension: int, collection: str = "memory", lock_timeout: float = 60.0,
                 generation_file: Path | None = None) -> None:
        self.path = Path(root).expanduser().resolve()
        self.dimension = dimension
        self.collection = collection
        self.lock_timeout = lock_timeout
        self.generation_file = generation_file or self.path.parent / "index-generation"

    def where(self) -> str:
        return str(self.path)

    def shard_path(self, day: str) -> Path:
        return self.path / week_of(day)

    def for_day(self, day: str) -> VectorStore:
        return self._shard(self.shard_path(day))

    def shards(self) -> list[VectorStore]:
        """The existing week stores, oldest first."""
        if not self.path.is_dir():
            return []
        return [self._shard(p) for p in sorted(self.path.iterdir()) if p.is_dir() and WEEK_NAME.match(p.name)]

    def _shard(self, path: Path) -> VectorStore:
        from memory_pipeline.resources.vectors.vector_store import VectorStore  # noqa: PLC0415 — qdrant-client: ~1 s to import

        return VectorStore(path=path, url=None, collection=self.collection, dimension=self.dimension,
                           lock_timeout=self.lock_timeout, generation_file=self.generation_file)

    # --- across every week ---------------------------------------------------------------

    def upsert(self, points: list[StorePoint]) -> None:
        """Write points, each to the week of its payload `date`."""
        by_week: dict[Path, list[StorePoint]] = defaultdict(list)
        for point in points:
            by_week[self.shard_path(str(point.payload.get("date")))].append(point)
        for path, group in sorted(by_week.items()):
            shard = self._shard(path)
            with shard.session():
                shard.ensure_collection()
                shard.upsert(group)

    def _filled(self) -> Iterator[VectorStore]:
        """Each week store that has points, held open (one load) while the caller works on it."""
        for shard in self.shards():
            with shard.session():
                if shard.count():
                    yield shard

    def delete(self, ids: list[str]) -> None:
        if ids:
            for shard in self._filled():
                shard.delete(ids)

    def missing_or_changed(self, ids_and_hashes: dict[str, str]) -> set[str]:
        missing = set(ids_and_hashes)
        for shard in self._filled() if missing else ():
            missing &= shard.missing_or_changed({i: ids_and_hashes[i] for i in missing})
        return missing

    def payload_fields(self, ids: list[str], fields: list[str]) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for shard in self._filled() if ids else ():
            found |= shard.payload_fields(ids, fields)
        return found

    def retrieve(self, ids: list[str], with_vectors: bool = False) -> list[StorePoint]:
        """The stored points among `ids`, from whichever week holds each (stops once all are found)."""
        wanted, found = set(ids), []
        for shard in self._filled() if wanted else ():
            points = shard.retrieve(sorted(wanted), with_vectors=with_vectors)
            found.extend(points)
            wanted -= {p.id for p in points}
            if not wanted:
                break
        return found

    def count(self, filter: dict[str, Any] | None = None) -> int:
        return sum(shard.count(filter) for shard in self.shards())

    def records(self, with_vectors: bool | list[str] = False, payload_filter: dict[str, Any] | None = None
                ) -> Iterator[Any]:
        for shard in self._filled():
            yield from shard.records(with_vectors=with_vectors, payload_filter=payload_filter)

    def scroll_all(self, with_vectors: bool = False, payload_filter: dict[str, Any] | None = None
                   ) -> Iterator[StorePoint]:
        for shard in self._filled():
            yield from shard.scroll_all(with_vectors=with_vectors, payload_filter=payload_filter)
