"""Index a day's observations in the vector store: one point per fact and per segment narrative.

Each point is dated by when it happened: a fact by its transcript time, a narrative by the capture
(the session's end when imported). Point ids are content-derived (uuid5), so re-runs upsert the same points; unchanged content is
not embedded again; points of a re-derived observation that no longer exist are deleted.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field, fields
from datetime import date, timedelta
from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.faults import pause_point
from memory_pipeline.models import Observation, content_hash
from memory_pipeline.ports import Embedder, ShardedIndex, VectorIndex
from memory_pipeline.resources.files.observation_files import load_observations
from memory_pipeline.resources.vectors.vector_store import StorePoint
from memory_pipeline.resources.workspace import Workspace, atomic_write_json
from memory_pipeline.stages.hooks.checkpoint_doc import KIND as CHECKPOINT
from memory_pipeline.stages.index.message_docs import has_keywords
from memory_pipeline.stages.index.observation_docs import observation_points
from memory_pipeline.stages.index.sparse import sparse_vector


@dataclass
class IndexStats:
    points: int = 0
    embedded: int = 0
    unchanged: int = 0
    deleted: int = 0
    stored: int = 0  # the day's points of the tier in the store afterwards
    merged: int = 0  # new facts folded into a near-duplicate memory at write
    rescoped: int = 0  # unchanged points whose project or scope was set in place
    embed_seconds: float = 0.0  # time in the embedding model (the rest: documents, sparse vectors, upserts)
    parts: dict[str, int] = field(default_factory=dict)  # points of another tier added in (`add`): its name → points

    def add(self, other: IndexStats, tier: str) -> None:
        """Count another tier's run of the same day in (the message index's passages)."""
        for counter in fields(self):  # every counter, the embedding seconds too; not the parts themselves
            if counter.name != "parts":
                setattr(self, counter.name, getattr(self, counter.name) + getattr(other, counter.name))
        self.parts[tier] = self.parts.get(tier, 0) + other.points


EMBED_CHUNK = 512  # points read, embedded and written at a time: the day's points are never all in memory
# at once (a session of 100k tiny messages held 180 MB of them, besides their vectors as Python floats)

PointSource = Callable[[], Iterable[StorePoint]]  # the day's points of a tier, made anew on each call


def _chunks(points: Iterable[StorePoint], size: int) -> Iterator[list[StorePoint]]:
    """The first point of each id, `size` at a time."""
    seen: set[str] = set()
    chunk: list[StorePoint] = []
    for point in points:
        if point.id in seen:
            continue
        seen.add(point.id)
        chunk.append(point)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def index_points(store: VectorIndex, embedder: Embedder, points: Iterable[StorePoint], stats: IndexStats,
                 first: Callable[[], None] | None = None, last: Callable[[], None] | None = None) -> None:
    """Embed and upsert the points whose content is new or changed, a chunk at a time as `points` is
    read; unchanged points get their project and scope refreshed; `stats.stored` counts the points
    found stored with their content afterwards. The store is held for its reads and writes, not while
    the chunk is embedded (unless the caller holds it): a day of long turns and their passages took
    the message index past the lock timeout of the other steps writing the store at load.

    One open per chunk and one more: a chunk is written in the open that checks the next one, and
    `first` and `last` run in the first and the last open (the caller's reads before the writes, its
    count and build after them). An open of an Edge shard at 1M points takes 1.5 s and drops its files
    from the page cache (docs/vector-engine.md); an index step also holds the shard across its chunks
    (`holding`) and opens it again only after another opener had it."""
    chunks = _chunks(points, EMBED_CHUNK)
    chunk, pending = next(chunks, None), None
    while True:
        with store.session():
            if first is not None:
                first()
                first = None
            if pending is not None:
                _write_chunk(store, stats, *pending)
            if chunk is None:
                if last is not None:
                    last()
                return
            hashes = {p.id: content_hash(p.text) for p in chunk}
            changed = store.missing_or_changed(hashes)
        todo = [p for p in chunk if p.id in changed]
        stats.points += len(chunk)
        stats.unchanged += len(chunk) - len(todo)
        vectors: list = []
        if todo:
            started = time.perf_counter()
            vectors = embedder.encode([p.text for p in todo])
            stats.embed_seconds += time.perf_counter() - started
        pending = (chunk, hashes, changed, todo, vectors)
        chunk = next(chunks, None)


def _write_chunk(store: VectorIndex, stats: IndexStats, chunk: list[StorePoint], hashes: dict[str, str],
                 changed: Collection[str], todo: list[StorePoint], vectors: list) -> None:
    """A chunk's new points upserted with their vectors, its unchanged ones rescoped (the store held)."""
    if todo:
        store.upsert([p.model_copy(update={"dense": dense, "sparse": sparse_vector(p.text)
                                           if has_keywords(p.payload) else None})
                      for p, dense in zip(todo, vectors, strict=True)])
        stats.embedded += len(todo)
    if len(todo) < len(chunk):
        stats.rescoped += refresh_scope(store, [p for p in chunk if p.id not in changed])
    stats.stored += len(chunk) - len(store.missing_or_changed(hashes))


SCOPE_FIELDS = ["project", "scope"]


def refresh_scope(store: VectorIndex, points: list[StorePoint]) -> int:
    """Points indexed before projects existed keep their vectors: their project and scope are set
    in place (grouped by value, one call each). Returns how many were updated."""
    stored = store.payload_fields([p.id for p in points], SCOPE_FIELDS)
    groups: dict[tuple, list[str]] = {}
    for point in points:
        wanted = {f: point.payload.get(f) for f in SCOPE_FIELDS}
        if point.id in stored and stored[point.id] != wanted:
            groups.setdefault(tuple(wanted.items()), []).append(point.id)
    for values, ids in groups.items():
        store.set_payload(ids, dict(values))
    return sum(len(ids) for ids in groups.values())


def read_manifest(path: Path) -> set[str] | None:
    try:
        return set(json.loads(path.read_text(encoding="utf-8")))
    except (FileNotFoundError, ValueError, TypeError):
        return None


def index_day(store: ShardedIndex, embedder: Embedder, day: str, tier: str,
              points: Collection[StorePoint] | PointSource, manifest_dir: Path | None = None) -> IndexStats:
    """Make the day's points of one tier exactly `points`: stale ones deleted, new ones embedded.

    `points` may be a function that makes them anew on each call: they are read twice, their ids
    first, then a chunk at a time into the store, so a large day is never in memory at once.
    With `manifest_dir`, the ids indexed for each day and tier are kept in a small manifest, so a
    run never scans the store with a payload filter: in Qdrant local mode such a scan reads every
    point in Python and made each day's run slower as history grew. The manifest is widened
    before the upsert and narrowed after it, so a crash in between cannot orphan points.
    """
    read = points if callable(points) else (lambda: points)
    stats = IndexStats()
    store = store.for_day(day)
    keep = {p.id for p in read()}
    manifest = manifest_dir / tier / f"{day}.json" if manifest_dir else None
    known = read_manifest(manifest) if manifest else None
    # the day as a range, which the shard's date index answers: an exact match on the date checked every
    # point of the tier (a new day's first run scrolled its tiers in 0.9-1.2 s each at 1M, 0.001 s so)
    next_day = (date.fromisoformat(day) + timedelta(days=1)).isoformat()
    day_filter = {"tier": tier, "date_gte": day, "date_lt": next_day}
    stale: list[str] = []

    def first() -> None:  # in the first open: the stale points go before anything is written
        nonlocal known, stale
        store.ensure_collection()
        if known is None:  # a session's task checkpoint (messages tier) is not the day's to delete
            known = {point.id for point in store.scroll_all(payload_filter=day_filter, fields=["kind"])
                     if point.payload.get("kind") != CHECKPOINT}
        stale = sorted(known - keep)
        if manifest:
            atomic_write_json(manifest, sorted(known | keep))
        if stale:
            store.delete(stale)
            stats.deleted = len(stale)

    def last() -> None:  # in the last open: the manifest narrowed, the count, the build
        if manifest:
            atomic_write_json(manifest, sorted(keep))
        else:
            stats.stored = store.count(day_filter)
        if stats.embedded or stale:
            store.optimize()  # the Edge shard builds its HNSW as points arrive (a server optimizes itself)

    index_points(store, embedder, read(), stats, first=first, last=last)  # let go while each chunk is embedded
    return stats


def index_observations(store: ShardedIndex, embedder: Embedder, day: str, observations: list[Observation],
                       manifest_dir: Path | None = None) -> IndexStats:
    pause_point("index:before-upsert")
    points = [p for o in observations for p in observation_points(o)]
    return index_day(store, embedder, day, "observations", points, manifest_dir)


def index_observation_day(workspace: Workspace, settings: Settings, store: ShardedIndex, embedder: Embedder,
                          day: str) -> IndexStats:
    """The `observation_index` asset's work: the day's observations, their manifest in state/index
    (near-duplicates merged at MEMORY_DEDUP_SIMILARITY)."""
    from memory_pipeline.flows.maintenance import day_facts_and_neighbours, merge_duplicates  # noqa: PLC0415 — Redis, only for the merge

    week = store.for_day(day)
    with week.holding():  # one open for both steps (their sessions use it), let go whenever another opener waits
        stats = index_observations(week, embedder, day, load_observations(workspace, day),
                                   manifest_dir=workspace.state_path("index"))
        if not stats.embedded:  # nothing new: the day's facts were merged when they were written
            return stats
        # Dedup at write: the day's new facts against the stored facts near them; the nightly
        # maintenance does it again (and catches a run killed between the two steps).
        merges = merge_duplicates(week, day_facts_and_neighbours(week, day, settings.dedup_similarity), day,
                                  settings.dedup_similarity)
    stats.merged = sum(len(m.members) - 1 for m in merges)
    return stats
