"""Fixtures for reflection and review tests: one real redis-server per test session, observations.

Import the fixtures into a test module by name:
`from memory_pipeline_tests.support.review_fixtures import redis_server, redis_store, proposal_store  # noqa: F401`
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memory_pipeline.models import Fact, Observation, Segment, stable_id
from memory_pipeline.resources.redis.proposals import ProposalStore
from memory_pipeline.resources.redis.redis_store import RedisStore
from memory_pipeline.stages.observe.format import format_fact
from memory_pipeline.stages.tokens import estimate_tokens
from memory_pipeline_tests.support.doors import embedded_redis


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    server = embedded_redis(tmp_path_factory.mktemp("review-redis"))
    server.ensure_running()
    yield server
    server.stop()


@pytest.fixture
def redis_store(redis_server, monkeypatch) -> RedisStore:
    """A RedisStore on an empty database; REDIS_URL points the CLI at the same server."""
    client = redis_server.client()
    client.flushdb()
    monkeypatch.setenv("REDIS_URL", f"unix://{redis_server.socket_path}")
    return RedisStore(client)


@pytest.fixture
def proposal_store(redis_store) -> ProposalStore:
    return ProposalStore(redis_store)


def fact(priority: str, text: str, time: str = "10:00", key: str = "s") -> Fact:
    return Fact(id=stable_id(key, text), priority=priority, time=time, text=text, source_message_ids=["m1"])


def observation(day: str, session: str, segments: list[Segment], *, hour: int = 10,
                current_task: str | None = None) -> Observation:
    key = f"{session}-{day}-{hour}"
    for segment in segments:
        for f in segment.facts:
            f.id = f.id or stable_id(key, f.text)
    facts_text = "\n".join(format_fact(f) for s in segments for f in s.facts)
    return Observation(id=stable_id(key), token_count=estimate_tokens(facts_text), dedupe_key=key, session_id=session, session_name=session,
                       trigger="shutdown", date=day,
                       captured_at=datetime.fromisoformat(f"{day}T{hour:02d}:00:00").replace(tzinfo=timezone.utc),
                       segments=segments, current_task=current_task, format="segments",
                       suggested_response="Session completed normally." if current_task else None)
