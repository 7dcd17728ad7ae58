"""The Qdrant collection: dense ("dense") + sparse BM25 ("bm25", IDF) vectors, hybrid RRF queries.

Local mode (`path`) allows one process per store folder, while Dagster run workers, CLI
commands and hooks may run at once. So each operation takes an inter-process file lock
(`<path>.lock`), opens `QdrantClient(path=...)`, works, closes the client and releases the lock.
`with store.session():` batches several operations under one open. With `url` the store talks
to a Qdrant server and needs no lock; `url=":memory:"` is Qdrant's in-process engine with no
lock and no file, held for the object's life: the server path's code, run here (tests, benchmarks).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from filelock import FileLock, Timeout
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from memory_pipeline.errors import BadInputError, MemoryPipelineError, ServiceError, StoreLockedError
from memory_pipeline.models import content_hash
from memory_pipeline.resources.vectors.vector_commits import one_commit
from memory_pipeline.resources.vectors.vector_points import StoreHit, StorePoint, build_filter
from memory_pipeline.resources.workspace import atomic_write_text

__all__ = ["StoreHit", "StorePoint", "VectorStore"]

DENSE = "dense"
SPARSE = "bm25"
BATCH = 256
GENERATION_FILE = "index-generation"
IN_MEMORY = ":memory:"


class VectorStore:
    def __init__(
        self,
        path: Path | None,
        url: str | None,
        api_key: str | None = None,
        collection: str = "memory",
        *,
        dimension: int,
        lock_timeout: float = 60.0,
        generation_file: Path | None = None,
    ) -> None:
        if (path is None) == (url is None):
            raise ServiceError("VectorStore needs exactly one of a local store path or a Qdrant URL")
        self.path = Path(path).expanduser().resolve() if path is not None else None
        self.url = url
        self.api_key = api_key
        self.collection = collection
        self.dimension = dimension
        self.lock_timeout = lock_timeout
        # bumped after every write, so readers holding an in-memory copy (the recall service) reload
        self.generation_file = generation_file or (self.path.parent / GENERATION_FILE if self.path else None)
        self._client: QdrantClient | None = None
        self._memory: QdrantClient | None = None  # the in-memory engine, kept across sessions
        self._depth = 0
        self._thread_lock = threading.RLock()

    def where(self) -> str:
        return str(self.path) if self.path is not None else str(self.url)

    def for_day(self, day: str) -> VectorStore:
        """The store a day's points live in: this one (`ShardedStore` picks a week)."""
        return self

    def shards(self) -> list[VectorStore]:
        return [self]

    # --- opening -----------------------------------------------------------------------

    @contextlib.contextmanager
    def session(self) -> Iterator[VectorStore]:
        """Hold the store open (and locked, in local mode) for several operations."""
        with self._thread_lock:
            if self._client is not None:
                self._depth += 1
                try:
                    yield self
                finally:
                    self._depth -= 1
                return
            with self._file_lock():
                self._client = self._open()
                try:
                    with _qdrant_errors(self.where()):
                        yield self
                finally:
                    client, self._client = self._client, None
                    if client is not self._memory:
                        client.close()

    def holding(self) -> contextlib.AbstractContextManager[VectorStore]:
        """An index step's hold: one session for the step (a server's collection takes any number of
        clients, so nobody waits for it to let go)."""
        return self.session()

    @contextlib.contextmanager
    def _file_lock(self) -> Iterator[None]:
        if self.path is None:
            yield
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(f"{self.path}.lock")
        try:
            lock.acquire(timeout=self.lock_timeout)
        except Timeout as exc:
            raise StoreLockedError(
                f"Qdrant store {self.path} stayed locked by another process for "
                f"{self.lock_timeout:.0f}s (lock file {lock.lock_file}); wait for it to finish or "
                "raise the lock timeout"
            ) from exc
        try:
            yield
        finally:
            lock.release()

    def _open(self) -> QdrantClient:
        if self.url == IN_MEMORY:
            self._memory = self._memory or QdrantClient(location=IN_MEMORY)
            return self._memory
        if self.url is not None:
            return QdrantClient(url=self.url, api_key=self.api_key, timeout=30)
        deadline = time.monotonic() + self.lock_timeout
        delay = 0.05
        while True:
            try:
                return QdrantClient(path=str(self.path))
            except RuntimeError as exc:  # a process outside our file lock has the folder open
                if "already accessed" not in str(exc):
                    raise ServiceError(f"cannot open Qdrant store {self.path}: {exc}") from exc
                if time.monotonic() + delay > deadline:
                    raise StoreLockedError(
                        f"Qdrant store {self.path} is held open by another process "
                        f"(not through memory-pipeline's lock) for {self.lock_timeout:.0f}s"
                    ) from exc
                time.sleep(delay)
                delay = min(delay * 2, 1.0)

    @property
    def client(self) -> QdrantClient:
        if self._client is None:
            raise RuntimeError("VectorStore.client used outside a session()")
        return self._client

    # --- collection --------------------------------------------------------------------

    def ensure_collection(self) -> None:
        """Create the collection, or check that its dense size matches the embedder's."""
        with self.session():
            if not self.client.collection_exists(self.collection):
                self.client.create_collection(
                    self.collection,
                    vectors_config={DENSE: models.VectorParams(size=self.dimension, distance=models.Distance.COSINE)},
                    sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
                )
                return
            vectors = self.client.get_collection(self.collection).config.params.vectors
            stored = vectors.get(DENSE) if isinstance(vectors, dict) else None
            if stored is None or stored.size != self.dimension:
                size = "no 'dense' vector" if stored is None else f"dense size {stored.size}"
                raise ServiceError(
                    f"collection {self.collection!r} in {self.where()} has {size}, but the embedding "
                    f"model gives {self.dimension}: the embedding model changed. Rebuild the index: "
                    f"delete the collection (or the store folder) and re-run indexing."
                )

    def delete_collection(self) -> None:
        with self.session():
            self.client.delete_collection(self.collection)
        self.bump_generation()

    # --- writing -----------------------------------------------------------------------

    def upsert(self, points: list[StorePoint]) -> None:
        """Write points; the payload gets `text` and `content_hash` (sha256 of the text)."""
        structs = [self._struct(p, compact=self.path is not None) for p in points]
        with self.session():
            for start in range(0, len(structs), BATCH):
                with one_commit(self.client, self.collection):
                    self.client.upsert(self.collection, points=structs[start : start + BATCH], wait=True)
        self.bump_generation()

    def bump_generation(self) -> None:
        """Record that the collection changed (a unique token, written atomically)."""
        if self.generation_file is not None:

            atomic_write_text(self.generation_file, f"{time.time_ns()}-{os.getpid()}-{uuid.uuid4().hex[:8]}\n")

    @staticmethod
    def _struct(point: StorePoint, compact: bool = False) -> models.PointStruct:
        """With `compact` (local mode), the dense vector is a float32 array: local mode pickles it as
        given and unpickles every point of the store on each open, and a list of Python floats
        there took ~12 KB a point (the peak of a day of 100k messages), the array 1.5 KB."""
        vector: dict[str, Any] = {}
        if point.dense is not None:
            vector[DENSE] = np.asarray(point.dense, dtype=np.float32) if compact else point.dense
        if point.sparse is not None and point.sparse[0]:
            vector[SPARSE] = models.SparseVector(indices=point.sparse[0], values=point.sparse[1])
        payload = {**point.payload, "text": point.text, "content_hash": content_hash(point.text)}
        if compact:  # the model's validation accepts lists only; local mode validates the vector itself
            return models.PointStruct.model_construct(id=point.id, vector=vector, payload=payload)
        return models.PointStruct(id=point.id, vector=vector, payload=payload)

    def set_payload(self, ids: list[str], payload: dict[str, Any]) -> None:
        if ids:
            with self.session():
                self.client.set_payload(self.collection, payload=payload, points=list(ids), wait=True)
            self.bump_generation()

    def delete(self, ids: list[str]) -> None:
        if ids:
            with self.session():
                self.client.delete(self.collection, points_selector=models.PointIdsList(points=list(ids)), wait=True)
            self.bump_generation()

    def delete_vectors(self, ids: list[str]) -> None:
        """Drop the dense and sparse vectors of these points and keep their payloads (a merged
        memory stays as a record of where its sources went, but is no longer searched or counted)."""
        if ids:
            with self.session():
                self.client.delete_vectors(self.collection, vectors=[DENSE, SPARSE], points=list(ids), wait=True)
            self.bump_generation()

    def optimize(self) -> bool:
        """Nothing to do: a Qdrant server runs its own optimizers (the Edge shard builds here)."""
        return False

    # --- compaction (local mode: resources/vectors/vector_compaction.py) -------------------------

    @contextlib.contextmanager
    def closed(self) -> Iterator[Path | None]:
        """The store locked but not opened (its files may be rewritten): yields the folder."""
        with self._thread_lock:
            if self._client is not None:
                raise RuntimeError("VectorStore.closed() inside a session()")
            with self._file_lock():
                yield self.path

    # --- reading -----------------------------------------------------------------------

    def missing_or_changed(self, ids_and_hashes: dict[str, str]) -> set[str]:
        """The ids (as given) that are not stored or whose stored content_hash differs."""
        wanted = {_norm(i): i for i in ids_and_hashes}
        stored: dict[str, str | None] = {}
        keys = list(wanted)
        with self.session():
            for start in range(0, len(keys), BATCH):
                records = self.client.retrieve(
                    self.collection, ids=keys[start : start + BATCH], with_payload=["content_hash"], with_vectors=False
                )
                stored.update({str(r.id): (r.payload or {}).get("content_hash") for r in records})
        return {given for norm, given in wanted.items() if stored.get(norm) != ids_and_hashes[given]}

    def payload_fields(self, ids: list[str], fields: list[str]) -> dict[str, dict[str, Any]]:
        """The stored values of `fields` for each id that is stored (ids as given)."""
        wanted = {_norm(i): i for i in ids}
        found: dict[str, dict[str, Any]] = {}
        keys = list(wanted)
        with self.session():
            for start in range(0, len(keys), BATCH):
                records = self.client.retrieve(self.collection, ids=keys[start : start + BATCH],
                                               with_payload=list(fields), with_vectors=False)
                found.update({wanted[str(r.id)]: {f: (r.payload or {}).get(f) for f in fields} for r in records})
        return found

    def retrieve(self, ids: list[str], with_vectors: bool = False) -> list[StorePoint]:
        """The stored points among `ids` (unknown ids are skipped), fetched by id, not scanned."""
        keys = list(dict.fromkeys(_norm(i) for i in ids))
        found: list[StorePoint] = []
        with self.session():
            if not keys or not self.client.collection_exists(self.collection):
                return found
            for start in range(0, len(keys), BATCH):
                records = self.client.retrieve(self.collection, ids=keys[start : start + BATCH], with_payload=True,
                                               with_vectors=with_vectors)
                found.extend(_point(r) for r in records)
        return found

    def near(self, vector: list[float], limit: int, score_threshold: float,
             payload_filter: dict[str, Any] | None = None) -> list[StorePoint]:
        """The points nearest `vector` (cosine ≥ `score_threshold`, at most `limit`), with their vectors."""
        with self.session():
            if not self.client.collection_exists(self.collection):
                return []
            found = self.client.query_points(self.collection, query=[float(x) for x in vector], using=DENSE,
                                             query_filter=build_filter(payload_filter), limit=limit,
                                             score_threshold=score_threshold, with_payload=True, with_vectors=True)
            return [_point(r) for r in found.points]

    def count(self, filter: dict[str, Any] | None = None) -> int:
        """Points matching the filter; 0 when nothing was ever indexed (no collection yet)."""
        with self.session():
            if not self.client.collection_exists(self.collection):
                return 0
            return self.client.count(self.collection, count_filter=build_filter(filter), exact=True).count

    def records(self, with_vectors: bool | list[str] = False, payload_filter: dict[str, Any] | None = None,
                batch: int = BATCH, fields: list[str] | None = None) -> Iterator[models.Record]:
        """Every stored record, raw (qdrant-client's Record: id, payload, vector; no validation per
        point, 5x faster than StorePoint at 100k); nothing when the store or its collection is absent."""
        if self.path is not None and not self.path.exists():
            return
        with self.session():
            if not self.client.collection_exists(self.collection):
                return
            offset = None
            while True:
                found, offset = self.client.scroll(self.collection, scroll_filter=build_filter(payload_filter),
                                                   limit=batch, offset=offset,
                                                   with_payload=list(fields) if fields else True,
                                                   with_vectors=with_vectors)
                yield from found
                if offset is None:
                    return

    def scroll_all(
        self, with_vectors: bool = False, payload_filter: dict[str, Any] | None = None,
        fields: list[str] | None = None,
    ) -> Iterator[StorePoint]:
        """Every point (the store stays open and locked until the iteration ends); `fields`: only these
        payload keys."""
        with self.session():
            offset = None
            while True:
                records, offset = self.client.scroll(
                    self.collection,
                    scroll_filter=build_filter(payload_filter),
                    limit=BATCH,
                    offset=offset,
                    with_payload=list(fields) if fields else True,
                    with_vectors=with_vectors,
                )
                for record in records:
                    yield _point(record)
                if offset is None:
                    return


def _norm(point_id: str) -> str:
    try:
        return str(uuid.UUID(point_id))
    except ValueError as exc:
        raise BadInputError(f"point id must be a UUID string, got {point_id!r}") from exc


def _point(record: models.Record | models.ScoredPoint) -> StorePoint:
    payload = dict(record.payload or {})
    vectors = record.vector if isinstance(record.vector, dict) else {}
    dense = vectors.get(DENSE)
    sparse = vectors.get(SPARSE)
    return StorePoint(
        id=str(record.id),
        text=str(payload.get("text", "")),
        dense=list(dense) if dense is not None else None,
        sparse=(list(sparse.indices), list(sparse.values)) if isinstance(sparse, models.SparseVector) else None,
        payload=payload,
    )


@contextlib.contextmanager
def _qdrant_errors(where: str) -> Iterator[None]:
    """Qdrant client failures become ServiceError; the project's own errors pass through."""
    try:
        yield
    except MemoryPipelineError:
        raise
    except (UnexpectedResponse, ResponseHandlingException, ValueError, KeyError) as exc:
        raise ServiceError(f"Qdrant operation on {where} failed: {exc}") from exc
