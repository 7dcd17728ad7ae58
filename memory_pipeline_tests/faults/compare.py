"""What a workspace holds, read from every store, and one comparison against a clean run."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from memory_pipeline.resources.files.observation_files import load_observations
from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis
from memory_pipeline.resources.vectors.stores import workspace_store
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.support.doors import redis_limits

MARKER = re.compile(r"<!-- (\w+): (\S+)")
TRANSIENT_KEYS = ("memory:observe:lock:",)


@dataclass
class StoreState:
    observations: dict[str, tuple]  # id -> (dedupe key, code version, ((fact id, priority, text), ...))
    log_markers: dict[str, list[tuple[str, str]]]  # day -> (kind, key) of every section, as found
    hot_lists: dict[str, list[str]]  # redis key -> dedupe keys (lists: in order; sets: sorted)
    redis_keys: list[str]
    point_ids: list[str]
    memory_md: str
    temp_files: list[str]


def observation_summary(ws: Workspace) -> dict[str, tuple]:
    days = sorted(p.name for p in (ws.root / "observations").iterdir()) if (ws.root / "observations").is_dir() else []
    found = {}
    for day in days:
        for o in load_observations(ws, day):
            facts = tuple(sorted((f.id, f.priority, f.text) for f in o.facts))
            found[o.id] = (o.dedupe_key, o.code_version, facts)
    return found


def redis_contents(ws: Workspace, redis_url: str | None = None) -> tuple[dict[str, list[str]], list[str]]:
    client = connect_redis(redis_url, ws.state, *redis_limits())
    try:
        keys = sorted(k for k in client.scan_iter("memory:*") if not k.startswith(TRANSIENT_KEYS))
        hot = {}
        for key in keys:
            if not key.startswith("memory:observations:"):
                continue
            if key.endswith(":keys"):
                hot[key] = sorted(client.smembers(key))
            else:
                hot[key] = [e["dedupeKey"] for e in RedisStore(client).observations(key.split(":", 2)[2])]
        return hot, keys
    finally:
        client.close()


def point_ids(ws: Workspace) -> list[str]:
    return sorted(p.id for p in workspace_store(ws.state, None, dimension=384, lock_timeout=30).scroll_all())


def read_state(ws: Workspace, redis_url: str | None = None) -> StoreState:
    """Everything `ws` holds; its hot lists from the Redis at `redis_url`, else its embedded server."""
    logs = {}
    for path in sorted((ws.root / "memory").glob("*.md")):
        logs[path.stem] = MARKER.findall(path.read_text(encoding="utf-8"))
    hot, keys = redis_contents(ws, redis_url)
    temps = sorted(str(p.relative_to(ws.root)) for p in ws.root.rglob(".*.tmp"))
    memory = ws.memory_md.read_text(encoding="utf-8") if ws.memory_md.exists() else ""
    return StoreState(observation_summary(ws), logs, hot, keys, point_ids(ws), memory, temps)


def assert_no_duplicates(state: StoreState) -> None:
    for day, markers in state.log_markers.items():
        repeated = [m for m, n in Counter(markers).items() if n > 1]
        assert not repeated, f"daily log {day} repeats sections {repeated}"
    for key, entries in state.hot_lists.items():
        assert len(entries) == len(set(entries)), f"redis {key} holds duplicates"
    assert len(state.point_ids) == len(set(state.point_ids))


def assert_same_state(actual: StoreState, clean: StoreState) -> None:
    """Same observations (ids, facts), log sections, hot lists, Qdrant points, MEMORY.md; no temp files."""
    assert_no_duplicates(actual)
    assert actual.temp_files == [], f"temp files left behind: {actual.temp_files}"
    assert sorted(actual.observations) == sorted(clean.observations)
    assert actual.observations == clean.observations
    assert {d: sorted(m) for d, m in actual.log_markers.items()} == {d: sorted(m) for d, m in clean.log_markers.items()}
    assert {k: sorted(v) for k, v in actual.hot_lists.items()} == {k: sorted(v) for k, v in clean.hot_lists.items()}
    assert actual.redis_keys == clean.redis_keys
    assert len(actual.point_ids) == len(clean.point_ids) and actual.point_ids == clean.point_ids
    assert actual.memory_md == clean.memory_md
