"""Redis: the connection (a URL or the embedded server) and the project's key scheme.

Keys (ADR-0021 "Storage Architecture"):
  memory:observations:{day}          list of observation JSON, 30 days
  memory:observations:{day}:keys     set of dedupe keys already pushed that day (same TTL)
  memory:observe:lock:{dedupeKey}    string, SET NX, 1 hour: observer idempotency guard
  memory:reflect:triggered:{day}     string, SET NX, 24 hours: reflect once per day
  memory:review:pending              list of pending proposal ids, no TTL
  memory:review:proposal:{id}        hash, 30 days: proposal content and metadata
  memory:review:texts                hash, no TTL: normalized text -> the pending or approved proposal saying it
  memory:review:rejected             hash, no TTL: normalized text -> the rejected proposal saying it
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import redis

from memory_pipeline.errors import BadInputError, ServiceError
from memory_pipeline.resources.redis.embedded_redis import EmbeddedRedis, process_alive

__all__ = ["EmbeddedRedis", "RedisStore", "connect_redis"]

DAY_SECONDS = 86_400
SOCKET_TIMEOUT = 5.0

# Push an observation once per dedupe key: SADD to the day's key set decides, atomically.
PUSH_ONCE = """
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1
"""
# Append to a list unless the value is already in it.
RPUSH_ABSENT = """
if redis.call('LPOS', KEYS[1], ARGV[1]) then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[1])
return 1
"""
# Delete a key only if it still holds the given value (release only our own lock).
DELETE_IF_EQUAL = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def _redact(url: str) -> str:
    """The URL without its password, for error messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return urlunsplit(parts._replace(netloc=user + netloc))


def connect_redis(settings_redis_url: str | None, state_dir: Path, idle_timeout: float,
                  runtime_dir: Path) -> redis.Redis:
    """A client for REDIS_URL when set, else for the embedded server (started if needed, stopping
    after `idle_timeout` seconds idle: MEMORY_REDIS_IDLE_TIMEOUT, its socket under `runtime_dir`
    when the state folder's path is too long: XDG_RUNTIME_DIR; both handed down by the caller)."""
    if settings_redis_url:
        where = _redact(settings_redis_url)
        try:
            client = redis.Redis.from_url(
                settings_redis_url,
                decode_responses=True,
                socket_timeout=SOCKET_TIMEOUT,
                socket_connect_timeout=SOCKET_TIMEOUT,
            )
        except ValueError as exc:
            raise ServiceError(f"Redis URL is not valid ({where}): {exc}") from exc
    else:
        server = EmbeddedRedis(state_dir, runtime_dir, idle_timeout=idle_timeout)
        server.ensure_running()
        where = f"unix://{server.socket_path}"
        client = server.client(timeout=SOCKET_TIMEOUT)
    try:
        client.ping()
    except (redis.RedisError, OSError) as exc:
        client.close()
        raise ServiceError(f"Redis unreachable at {where}: {exc}") from exc
    return client


def _encode(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class RedisStore:
    """Typed access to the memory:* keys. Redis errors become ServiceError."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self._push_once = client.register_script(PUSH_ONCE)
        self._rpush_absent = client.register_script(RPUSH_ABSENT)
        self._delete_if_equal = client.register_script(DELETE_IF_EQUAL)

    def _call(self, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (redis.RedisError, OSError) as exc:
            raise ServiceError(f"Redis command failed: {exc}") from exc

    def ping(self) -> bool:
        return bool(self._call(self.client.ping))

    # --- observer idempotency lock -----------------------------------------------------

    @staticmethod
    def observe_lock_key(dedupe_key: str) -> str:
        return f"memory:observe:lock:{dedupe_key}"

    def acquire_observe_lock(self, dedupe_key: str, value: str, ttl: int = 3600) -> bool:
        """SET NX EX: True if this caller now holds the lock."""
        return bool(self._call(self.client.set, self.observe_lock_key(dedupe_key), value, nx=True, ex=ttl))

    def get_observe_lock(self, dedupe_key: str) -> str | None:
        return self._call(self.client.get, self.observe_lock_key(dedupe_key))

    def release_observe_lock(self, dedupe_key: str, value: str | None = None) -> bool:
        """Delete the lock; with `value`, only if it still holds that value."""
        key = self.observe_lock_key(dedupe_key)
        if value is None:
            return bool(self._call(self.client.delete, key))
        return bool(self._call(self._delete_if_equal, keys=[key], args=[value]))

    def claim_observe_lock(self, dedupe_key: str, version: str) -> bool:
        """Take the observe lock for one event. True when this process now holds it: it was free,
        its holder observes another code version, or its holder was a process of this host that
        died (kill -9 mid-observation: its lock is taken over, not waited on). False while a live
        run of the same version holds it."""
        mine = f"{version} {socket.gethostname()} {os.getpid()}"
        if self.acquire_observe_lock(dedupe_key, mine):
            return True
        holder = self.get_observe_lock(dedupe_key) or ""
        parts = holder.split()
        if not parts or parts[0] != version:
            return True
        if len(parts) == 3 and parts[1] == socket.gethostname() and parts[2].isdigit():
            pid = int(parts[2])
            if pid == os.getpid() or not process_alive(pid):
                self.release_observe_lock(dedupe_key, holder)
                self.acquire_observe_lock(dedupe_key, mine)
                return True
        return False

    # --- hot observations --------------------------------------------------------------

    @staticmethod
    def observations_key(day: str) -> str:
        return f"memory:observations:{day}"

    def push_observation(self, day: str, entry: dict, ttl_days: int = 30) -> bool:
        """Append `entry` (JSON) once per `entry["dedupeKey"]`; False if already pushed."""
        dedupe_key = entry.get("dedupeKey")
        if not dedupe_key:
            raise BadInputError("an observation entry needs a non-empty 'dedupeKey'")
        key = self.observations_key(day)
        args = [dedupe_key, json.dumps(entry, ensure_ascii=False), ttl_days * DAY_SECONDS]
        return bool(self._call(self._push_once, keys=[key, f"{key}:keys"], args=args))

    def observations(self, day: str) -> list[dict]:
        return [json.loads(raw) for raw in self._call(self.client.lrange, self.observations_key(day), 0, -1)]

    def replace_observation(self, day: str, index: int, entry: dict) -> None:
        """LSET: replace the entry at `index` (used by recursive distillation)."""
        key = self.observations_key(day)
        self._call(self.client.lset, key, index, json.dumps(entry, ensure_ascii=False))
        if entry.get("dedupeKey"):
            self._call(self.client.sadd, f"{key}:keys", entry["dedupeKey"])

    def mark_reflect_triggered(self, day: str) -> bool:
        """True the first time per day (24 h guard), False afterwards."""
        key = f"memory:reflect:triggered:{day}"
        return bool(self._call(self.client.set, key, "1", nx=True, ex=DAY_SECONDS))

    # --- review proposals --------------------------------------------------------------

    PENDING_KEY = "memory:review:pending"

    @staticmethod
    def proposal_key(pid: str) -> str:
        return f"memory:review:proposal:{pid}"

    def save_proposal(self, pid: str, mapping: dict[str, Any], ttl_days: int = 30) -> None:
        """HSET the proposal (non-string values stored as JSON) and set its TTL, atomically."""
        if not mapping:
            raise BadInputError(f"proposal {pid} has no fields")
        key = self.proposal_key(pid)
        pipe = self.client.pipeline(transaction=True)
        pipe.hset(key, mapping={k: _encode(v) for k, v in mapping.items()})
        pipe.expire(key, ttl_days * DAY_SECONDS)
        self._call(pipe.execute)

    def get_proposal(self, pid: str) -> dict[str, str] | None:
        found = self._call(self.client.hgetall, self.proposal_key(pid))
        return found or None

    def add_pending(self, pid: str) -> bool:
        """Queue a proposal id unless already queued; True if added."""
        return bool(self._call(self._rpush_absent, keys=[self.PENDING_KEY], args=[pid]))

    def remove_pending(self, pid: str) -> bool:
        return bool(self._call(self.client.lrem, self.PENDING_KEY, 0, pid))

    def pending(self) -> list[str]:
        return list(self._call(self.client.lrange, self.PENDING_KEY, 0, -1))

    # --- recall counters ---------------------------------------------------------------

    RECALL_HITS_KEY = "memory:recall:hits"

    def record_recall_hits(self, point_ids: list[str]) -> None:
        """HINCRBY each recalled point's counter (read by staleness and echo/fizzle)."""
        if not point_ids:
            return
        pipe = self.client.pipeline(transaction=False)
        for pid in point_ids:
            pipe.hincrby(self.RECALL_HITS_KEY, pid, 1)
        self._call(pipe.execute)

    def recall_hits(self, point_ids: list[str] | None = None) -> dict[str, int]:
        """The counters of the given points (0 when never recalled), or every counter."""
        if point_ids is None:
            return {k: int(v) for k, v in self._call(self.client.hgetall, self.RECALL_HITS_KEY).items()}
        if not point_ids:
            return {}
        values = self._call(self.client.hmget, self.RECALL_HITS_KEY, list(point_ids))
        return {pid: int(v or 0) for pid, v in zip(point_ids, values, strict=True)}

    FIRST_SEEN_KEY = "memory:maintenance:first_seen"

    def first_seen(self, point_ids: list[str], today: str) -> dict[str, str]:
        """The day maintenance first saw each point (`today` for a new one); points no longer in
        `point_ids` are forgotten, so the hash holds the live memories only."""
        known = self._call(self.client.hkeys, self.FIRST_SEEN_KEY)
        pipe = self.client.pipeline(transaction=False)
        gone = sorted(set(known) - set(point_ids))
        for start in range(0, len(gone), 1000):
            pipe.hdel(self.FIRST_SEEN_KEY, *gone[start : start + 1000])
        for pid in point_ids:
            pipe.hsetnx(self.FIRST_SEEN_KEY, pid, today)
        self._call(pipe.execute)
        values = self._call(self.client.hmget, self.FIRST_SEEN_KEY, list(point_ids)) if point_ids else []
        return {pid: str(v or today) for pid, v in zip(point_ids, values, strict=True)}

    # --- echo/fizzle ------------------------------------------------------------------

    FEEDBACK_KEY = "memory:feedback:score"
    ECHOES_KEY = "memory:feedback:used"
    FIZZLES_KEY = "memory:feedback:ignored"

    def feedback(self, ids: list[str] | None = None) -> dict[str, float]:
        """The echo/fizzle scores of the given memories (0.0 when never judged), or every score."""
        if ids is None:
            return {k: float(v) for k, v in self._call(self.client.hgetall, self.FEEDBACK_KEY).items()}
        values = self._call(self.client.hmget, self.FEEDBACK_KEY, list(ids)) if ids else []
        return {i: float(v or 0.0) for i, v in zip(ids, values, strict=True)}

    def echoes(self) -> dict[str, int]:
        return {k: int(v) for k, v in self._call(self.client.hgetall, self.ECHOES_KEY).items()}

    def record_feedback(self, memory_id: str, score: float, used: bool) -> None:
        pipe = self.client.pipeline(transaction=True)
        pipe.hset(self.FEEDBACK_KEY, memory_id, score)
        pipe.hincrby(self.ECHOES_KEY if used else self.FIZZLES_KEY, memory_id, 1)
        self._call(pipe.execute)

    # --- review proposals: indexes and status changes (reflection & review) ------------

    TEXT_INDEX_KEY = "memory:review:texts"
    REJECTED_KEY = "memory:review:rejected"
    # Drop a text's entry only while it still names the given proposal.
    RELEASE_IF = "if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end return 0"
    # Change a proposal's status only if it still has the expected one (one winner per race).
    SET_STATUS_IF = """
    if redis.call('HGET', KEYS[1], 'status') ~= ARGV[1] then return 0 end
    for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
    redis.call('HSET', KEYS[1], 'status', ARGV[2])
    return 1
    """

    def proposal_ids(self, prefix: str = "p-") -> list[str]:
        """Ids of every stored proposal whose id starts with `prefix`, sorted."""
        pattern = self.proposal_key(f"{prefix}*")
        keys = self._call(lambda: list(self.client.scan_iter(match=pattern, count=500)))
        return sorted(k.rsplit(":", 1)[1] for k in keys)

    def update_proposal(self, pid: str, mapping: dict[str, Any]) -> None:
        """HSET fields of an existing proposal (its TTL is kept)."""
        if not self._call(self.client.exists, self.proposal_key(pid)):
            raise BadInputError(f"unknown proposal {pid}")
        self._call(self.client.hset, self.proposal_key(pid), mapping={k: _encode(v) for k, v in mapping.items()})

    def set_proposal_status_if(self, pid: str, expected: str, status: str, fields: dict[str, Any] | None = None) -> bool:
        """Atomically move `pid` from `expected` to `status` (and set `fields`); False if it was not `expected`."""
        args = [expected, status]
        for key, value in (fields or {}).items():
            args += [key, _encode(value)]
        script = self.client.register_script(self.SET_STATUS_IF)
        return bool(self._call(script, keys=[self.proposal_key(pid)], args=args))

    def claim_proposal_text(self, text_key: str, pid: str) -> str:
        """Record `pid` as the proposal for a normalized text unless one is; returns the owner id."""
        self._call(self.client.hsetnx, self.TEXT_INDEX_KEY, text_key, pid)
        return self._call(self.client.hget, self.TEXT_INDEX_KEY, text_key)

    def proposal_for_text(self, text_key: str) -> str | None:
        return self._call(self.client.hget, self.TEXT_INDEX_KEY, text_key)

    def release_proposal_text(self, text_key: str, pid: str) -> bool:
        """Forget that `pid` proposes this text (it expired or was rejected), unless another owns it."""
        script = self.client.register_script(self.RELEASE_IF)
        return bool(self._call(script, keys=[self.TEXT_INDEX_KEY], args=[text_key, pid]))

    def mark_text_rejected(self, text_key: str, pid: str) -> None:
        self._call(self.client.hset, self.REJECTED_KEY, text_key, pid)

    def rejected_for_text(self, text_key: str) -> str | None:
        return self._call(self.client.hget, self.REJECTED_KEY, text_key)
