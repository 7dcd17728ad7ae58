"""A workspace indexed before passages existed gets them from its stored messages, newest day first,
within a night's budget; a day done is not done again."""

from __future__ import annotations

import pytest

from memory_pipeline.flows.index.observations import index_day
from memory_pipeline.flows.index.messages import backfill_passages, days_without_passages, index_messages
from memory_pipeline.models import stable_id
from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.resources.embedding.embedder import get_embedder
from memory_pipeline.resources.vectors.vector_store import StorePoint

DAYS = ("2026-08-01", "2026-08-02", "2026-08-03")
SAID = ("We deploy the shop with docker compose on the staging box. Never run the migrations by hand there, "
        "the release script does it and keeps the lock. Can you check why the last release hung?")


def turns(day: str) -> list[StorePoint]:
    payload = {"tier": "messages", "date": day, "project": "shop", "scope": "project", "session_id": f"s-{day}"}
    return [StorePoint(id=stable_id("turn", day, role), text=f"[{day}] {text}",
                       payload=payload | {"role": role, "message": text})
            for role, text in (("user", SAID), ("assistant", "It waited on the lock. " * 8))]


@pytest.fixture
def store(tmp_path):
    return EdgeStore(tmp_path / "vectors", dimension=get_embedder().dimension, lock_timeout=5)


def test_message_days_indexed_before_passages_get_them_from_the_store(store, tmp_path):
    manifests = tmp_path / "index"
    for day in DAYS:  # as an older version indexed them: the messages tier only
        index_day(store, get_embedder(), day, "messages", turns(day), manifests)
    assert store.count({"tier": "passages"}) == 0
    assert days_without_passages(manifests) == list(reversed(DAYS))

    assert backfill_passages(store, get_embedder(), manifests, budget_s=0) == ([], 0)  # no time: nothing
    done, embedded = backfill_passages(store, get_embedder(), manifests)
    assert done == list(reversed(DAYS)) and embedded == 3 * 2  # the user's turn: two windows a day
    assert days_without_passages(manifests) == []
    made = {p.id: p for p in store.scroll_all(payload_filter={"tier": "passages"})}
    assert {p.payload["passage_of"] for p in made.values()} == {stable_id("turn", d, "user") for d in DAYS}
    assert all(p.payload["project"] == "shop" and p.payload["date"] in DAYS for p in made.values())

    # the same passages as a day indexed now: the next message index of a backfilled day embeds nothing
    stats = index_messages(store, get_embedder(), DAYS[0], turns(DAYS[0]), manifests)
    assert (stats.embedded, stats.parts) == (0, {"passages": 2})
    assert backfill_passages(store, get_embedder(), manifests) == ([], 0)


def test_the_shard_is_let_go_while_a_days_points_are_embedded(store, tmp_path):
    from memory_pipeline.resources.vectors.edge_shard import shard_lock

    class Checking:
        """The real model; each encode first takes the shard's lock as another writer would, waiting 1 s."""
        dimension = get_embedder().dimension

        def encode(self, texts):
            with shard_lock(store.path, 1.0, ask=False):  # a StoreLockedError if the index held it
                calls.append(len(texts))
            return get_embedder().encode(texts)

    calls: list[int] = []
    stats = index_messages(store, Checking(), DAYS[0], turns(DAYS[0]), tmp_path / "index")
    assert calls == [2, 2] and stats.embedded == 4  # the two turns, then the user's turn's two passages
    assert store.count({"date": DAYS[0]}) == 4
