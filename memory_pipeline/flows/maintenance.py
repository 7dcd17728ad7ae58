"""Nightly maintenance of one day (seed 003, Increments 2 and 3): merge the day's facts into the
near-duplicates already remembered, tag memories nobody uses as stale (and untag used ones),
and drop Redis keys past their window. The work behind the `maintenance` asset and `maintain`.

Merged and stale are payload fields of the Qdrant points: `merged_into` hides a fact from recall
(its sources live on the memory it was merged into), `stale` de-ranks it. Nothing on disk is
deleted: the daily logs and observation files still say what each session observed.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import date, timedelta

from memory_pipeline.config import Settings
from memory_pipeline.faults import pause_point
from memory_pipeline.ports import ShardedIndex
from memory_pipeline.resources.files.observation_files import load_observations
from memory_pipeline.resources.redis.proposals import ProposalStore
from memory_pipeline.resources.redis.redis_store import RedisStore
from memory_pipeline.resources.vectors.vector_compaction import compact_store
from memory_pipeline.resources.vectors.vector_points import StorePoint
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.index.observation_docs import observation_points
from memory_pipeline.stages.maintenance.duplicates import FactVector, Merge, merged_payloads, near_duplicate_groups
from memory_pipeline.stages.maintenance.staleness import Memory, stale_changes

HOT_LIST_DAYS = 30  # the Redis hot list keeps a day's observations this long (redis_store TTL)


@dataclass
class MaintenanceReport:
    day: str
    memories: int = 0
    merged: int = 0  # facts folded into another memory
    merge_groups: list[dict] = field(default_factory=list)
    tagged_stale: int = 0
    unstaled: int = 0
    redis_keys_removed: int = 0
    vectors_dropped: int = 0  # of merged memories (resources/vectors/vector_compaction.py)
    stores_vacuumed: int = 0
    stores_removed: int = 0
    store_bytes_reclaimed: int = 0
    bytes_reclaimed: int = 0  # Redis and store together

    def as_dict(self) -> dict:
        return asdict(self)


def _set_payloads(store: ShardedIndex, stored: Mapping[str, dict], payloads: dict[str, dict]) -> None:
    """One set_payload call per (day's store, payload) of the points whose `stored` payloads (id → its payload,
    its date at least) `payloads` changes."""
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for pid, payload in payloads.items():
        groups[(str(stored[pid].get("date")), json.dumps(payload, sort_keys=True))].append(pid)
    for (day, payload_json), ids in sorted(groups.items()):
        store.for_day(day).set_payload(ids, json.loads(payload_json))


def _scope_of(point: StorePoint) -> str:
    """What a fact may merge with: its project's facts, or the user's own (user-level) facts."""
    return "\x00user" if point.payload.get("scope") == "user" else str(point.payload.get("project") or "")


STALENESS_FIELDS = ["date", "stale", "merged_into"]  # what tag_stale and the merged check read of each memory
NEAR_LIMIT = 50  # stored facts read around each new one (its near-duplicates are a handful)
NEAR_MARGIN = 0.03  # the dense index scores 4-bit copies (on lme-dev's 12k real vectors within 0.011 of the
# cosine at p99, 0.020 at most): neighbours are read a little under the threshold, and the exact cosine of their
# float vectors decides (near_duplicate_groups)


def day_facts_and_neighbours(store: ShardedIndex, day: str, similarity: float) -> dict[str, StorePoint]:
    """The day's observations with their vectors and, around each of its facts, the stored facts the dense
    index finds within `similarity` (less NEAR_MARGIN): all merge_duplicates needs, since a merge always
    starts at one of the day's facts. Reading every fact with its vector instead held 5+ GB at 1M points."""
    points = {p.id: p for p in store.scroll_all(with_vectors=True, payload_filter={
        "tier": "observations", "date_gte": day, "date_lte": day})}
    for point in list(points.values()):
        if point.payload.get("kind") == "fact" and point.dense is not None:
            for near in store.near(point.dense, NEAR_LIMIT, similarity - NEAR_MARGIN,
                                   {"tier": "observations", "kind": "fact"}):
                points.setdefault(near.id, near)
    return points


def merge_duplicates(store: ShardedIndex, points: dict[str, StorePoint], day: str,
                     similarity: float) -> list[Merge]:
    facts = {pid: p for pid, p in points.items() if p.payload.get("kind") == "fact" and p.dense is not None}
    vectors = {pid: FactVector(pid, float(p.payload.get("created_ts") or 0.0), p.dense,
                               p.payload.get("merged_into")) for pid, p in facts.items() if p.dense is not None}
    merges = []
    for project in sorted({_scope_of(p) for p in facts.values()}):  # never one memory across projects
        mine = {pid: v for pid, v in vectors.items() if _scope_of(facts[pid]) == project}
        new = [v for pid, v in mine.items() if facts[pid].payload.get("date") == day]
        known = [v for pid, v in mine.items() if facts[pid].payload.get("date") != day]
        merges += near_duplicate_groups(new, known, similarity)
    keeps: dict[str, dict] = {}
    folded: dict[str, dict] = {}
    for merge in merges:
        keeps[merge.keep], members = merged_payloads(merge, {m: points[m].payload for m in merge.members})
        folded.update(members)
    # The kept memory gets every source before the others are folded into it: a run killed in
    # between leaves them unfolded, and the next run forms the same group again (nothing lost).
    stored = {pid: p.payload for pid, p in points.items()}
    _set_payloads(store, stored, keeps)
    pause_point("maintenance:kept")
    _set_payloads(store, stored, folded)
    return merges


def tag_stale(store: ShardedIndex, stored: Mapping[str, dict], redis: RedisStore, today: str,
              stale_after_days: int) -> tuple[int, int]:
    """`stored`: every memory's id → its STALENESS_FIELDS."""
    live = sorted(pid for pid, p in stored.items() if p.get("date") and not p.get("merged_into"))
    recalls, echoes, since = redis.recall_hits(), redis.echoes(), redis.first_seen(live, today)
    reviewed = {fid for p in ProposalStore(redis).all().values() if p.status == "approved" for fid in p.source_fact_ids}
    memories = [Memory(pid, str(stored[pid].get("date")), bool(stored[pid].get("stale")),
                       recalls.get(pid, 0), echoes.get(pid, 0), since[pid], pid in reviewed) for pid in live]
    changes = stale_changes(memories, today, stale_after_days)
    _set_payloads(store, stored, {pid: {"stale": True} for pid in changes.tag}
                  | {pid: {"stale": False} for pid in changes.untag})
    return len(changes.tag), len(changes.untag)


def drop_expired_redis_keys(redis: RedisStore, today: str) -> tuple[int, int]:
    """Hot lists and reflect markers of days past the window (a TTL normally removes them; keys
    written by an older version or restored from an AOF may lack one)."""
    oldest = (date.fromisoformat(today) - timedelta(days=HOT_LIST_DAYS)).isoformat()
    removed, freed = 0, 0
    for pattern in ("memory:observations:*", "memory:reflect:triggered:*"):
        for key in redis.client.scan_iter(match=pattern, count=500):
            day = key.split(":")[-1] if not key.endswith(":keys") else key.split(":")[-2]
            if len(day) == 10 and day < oldest:
                freed += int(redis.client.memory_usage(key) or 0)
                removed += redis.client.delete(key)
    return removed, freed


def maintain_day(workspace: Workspace, store: ShardedIndex, redis: RedisStore, day: str, *, today: str,
                 settings: Settings) -> MaintenanceReport:
    """One run at a time per workspace (a second waits for the first). The store is held for the run: its
    reads and writes share one open of the shard (a session each opened it again: 1.5 s at 1M points, and a
    year's merged memories were deleted a day at a time, 365 opens), let go when another opener waits."""
    with workspace.locked("maintenance", timeout=600), store.holding():
        return _maintain(workspace, store, redis, day, today, settings)


def _maintain(workspace: Workspace, store: ShardedIndex, redis: RedisStore, day: str, today: str,
              settings: Settings) -> MaintenanceReport:
    pause_point("maintenance:start")
    merges = merge_duplicates(store, day_facts_and_neighbours(store, day, settings.dedup_similarity), day,
                              settings.dedup_similarity)
    pause_point("maintenance:merged")
    folded = {m for merge in merges for m in merge.members if m != merge.keep}
    # every memory, read after the merges with what staleness looks at, as the store's raw payloads (not its
    # text: at 1M points the whole payloads took the run to 1.86 GB; a StorePoint each held 503 MB of the
    # process's memory for 333k memories, their payloads 176 MB)
    stored = {str(r.id): r.payload or {} for r in store.records(payload_filter={"tier": "observations"},
                                                                fields=STALENESS_FIELDS)}
    report = MaintenanceReport(day=day, memories=len(stored))
    report.merged = sum(len(m.members) - 1 for m in merges)
    report.merge_groups = [{"keep": m.keep, "members": m.members} for m in merges]
    merged = {p.id: p for p in store.retrieve(  # with their vectors: compaction drops those still held
        [pid for pid, p in stored.items() if p.get("merged_into") or pid in folded], with_vectors=True)}
    report.tagged_stale, report.unstaled = tag_stale(store, stored, redis, today, settings.stale_after_days)
    report.redis_keys_removed, redis_bytes = drop_expired_redis_keys(redis, today)
    pause_point("maintenance:compact")
    compaction = compact_store(store, merged)
    report.vectors_dropped, report.stores_vacuumed = compaction.vectors_dropped, compaction.stores_vacuumed
    report.stores_removed, report.store_bytes_reclaimed = compaction.stores_removed, compaction.bytes_reclaimed
    report.bytes_reclaimed = redis_bytes + compaction.bytes_reclaimed
    workspace.write_json(workspace.state_path("maintenance") / f"{day}.json", report.as_dict())
    return report


@dataclass
class IndexAudit:
    expected: int
    stored: int
    missing: list[str]  # facts and narratives of the observation files the store lacks
    extra: list[str]  # points the store holds that no observation file explains

    @property
    def equal(self) -> bool:
        return not self.missing and not self.extra


def audit_index(workspace: Workspace, store: ShardedIndex, days: list[str]) -> IndexAudit:
    """Rebuild the observation tier's point ids from the observation files and compare them with
    the live store (the weekly check that nothing drifted)."""
    expected = {p.id for day in days for o in load_observations(workspace, day) for p in observation_points(o)}
    stored = {p.id for p in store.scroll_all(payload_filter={"tier": "observations"})}
    return IndexAudit(len(expected), len(stored), sorted(expected - stored), sorted(stored - expected))
