"""Index a day's observations in the vector store: one point per fact and per segment narrative.

Each point is dated by when it happened: a fact by its transcript time, a narrative by the capture
(the session's end when imported). Point ids are content-derived (uuid5), so re-runs upsert the same points; unchanged content is
not embedded again; points of a re-derived observation that no longer exist are deleted.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from memory_pipeline.faults import pause_point
from memory_pipeline.models import Observation, content_hash
from memory_pipeline.ports import Embedder, ShardedIndex, VectorIndex
from memory_pipeline.resources.vector_store import StorePoint
from memory_pipeline.resources.workspace import Workspace, atomic_write_json
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


EMBED_CHUNK = 512  # points embedded and written at a time: their vectors as Python floats are the
# transient peak (2,048 of them: +50 MB RSS per chunk at 10k tiny messages), so a day stays small


def index_points(store: VectorIndex, embedder: Embedder, points: list[StorePoint], stats: IndexStats) -> None:
    """Embed and upsert the points whose content is new or changed, a chunk at a time (the
    vectors of a whole day, as Python floats, took GBs for a session of 100k tiny messages)."""
    by_id = {p.id: p for p in points}
    hashes = {p.id: content_hash(p.text) for p in by_id.values()}
    todo = [by_id[i] for i in sorted(store.missing_or_changed(hashes))]
    stats.points += len(by_id)
    stats.unchanged += len(by_id) - len(todo)
    for start in range(0, len(todo), EMBED_CHUNK):
        chunk = todo[start:start + EMBED_CHUNK]
        started = time.perf_counter()
        vectors = embedder.encode([p.text for p in chunk])
        stats.embed_seconds += time.perf_counter() - started
        ready = []
        for point, dense in zip(chunk, vectors, strict=True):
            indices, values = sparse_vector(point.text)
            ready.append(point.model_copy(update={"dense": dense, "sparse": (indices, values)}))
        store.upsert(ready)
        stats.embedded += len(ready)


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


def _read_manifest(path: Path) -> set[str] | None:
    try:
        return set(json.loads(path.read_text(encoding="utf-8")))
    except (FileNotFoundError, ValueError, TypeError):
        return None


def index_day(store: ShardedIndex, embedder: Embedder, day: str, tier: str, points: list[StorePoint],
              manifest_dir: Path | None = None) -> IndexStats:
    """Make the day's points of one tier exactly `points`: stale ones deleted, new ones embedded.

    With `manifest_dir`, the ids indexed for each day and tier are kept in a small manifest, so a
    run never scans the store with a payload filter: in Qdrant local mode such a scan reads every
    point in Python and made each day's run slower as history grew. The manifest is widened
    before the upsert and narrowed after it, so a crash in between cannot orphan points.
    """
    stats = IndexStats()
    store = store.for_day(day)
    keep = {p.id for p in points}
    manifest = manifest_dir / tier / f"{day}.json" if manifest_dir else None
    known = _read_manifest(manifest) if manifest else None
    day_filter = {"tier": tier, "date": day}  # an exact match: a date range parses every stored date
    with store.session():
        store.ensure_collection()
        if known is None:
            known = {point.id for point in store.scroll_all(payload_filter=day_filter)}
        stale = sorted(known - keep)
        if manifest:
            atomic_write_json(manifest, sorted(known | keep))
        if stale:
            store.delete(stale)
            stats.deleted = len(stale)
        index_points(store, embedder, points, stats)
        stats.rescoped = refresh_scope(store, points) if stats.unchanged else 0
        hashes = {p.id: content_hash(p.text) for p in points}
        stats.stored = len(hashes) - len(store.missing_or_changed(hashes)) if manifest else store.count(day_filter)
        if manifest:
            atomic_write_json(manifest, sorted(keep))
    return stats


def index_observations(store: ShardedIndex, embedder: Embedder, day: str, observations: list[Observation],
                       manifest_dir: Path | None = None) -> IndexStats:
    pause_point("index:before-upsert")
    points = [p for o in observations for p in observation_points(o)]
    return index_day(store, embedder, day, "observations", points, manifest_dir)


def index_observation_day(workspace: Workspace, store: ShardedIndex, embedder: Embedder, day: str) -> IndexStats:
    """The `observation_index` asset's work: the day's observations, their manifest in state/index."""
    from memory_pipeline.config import Settings
    from memory_pipeline.flows.maintenance import merge_duplicates
    from memory_pipeline.resources.observation_files import load_observations

    stats = index_observations(store, embedder, day, load_observations(workspace, day),
                               manifest_dir=workspace.state_path("index"))
    if not stats.embedded:  # nothing new: the day's facts were merged when they were written
        return stats
    # Dedup at write: the day's new facts against the facts of their own week store; the nightly
    # maintenance compares them with every week (and catches a run killed between the two steps).
    week = store.for_day(day)
    with week.session():
        points = {p.id: p for p in week.scroll_all(with_vectors=True, payload_filter={"tier": "observations"})}
        merges = merge_duplicates(week, points, day, Settings.from_env().dedup_similarity)
    stats.merged = sum(len(m.members) - 1 for m in merges)
    return stats
