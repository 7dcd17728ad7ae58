"""Recall's candidates from the Edge shard's own query against the in-memory index's (the QDRANT_URL
path): the same top lists and scores under every filter recall takes, and the same cited messages."""

from __future__ import annotations

import random
from datetime import date
from pathlib import Path

import pytest

from memory_pipeline.resources.vectors.edge_recall import ShardRecall
from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.resources.vectors.recall_index import RecallIndex
from memory_pipeline.stages.index.sparse import tokenize
from memory_pipeline.stages.recall.candidates import CandidateQuery
from memory_pipeline.stages.recall.rank import RecallFilters
from memory_pipeline_tests.resources.test_vector_store import DIM, random_point

WORDS = "redis pool pagination orders deploy docker cache retry queue schema index worker".split()


def points(n: int = 120):
    rng = random.Random(7)
    out = []
    for i in range(n):
        tier = "messages" if i % 3 else "observations"
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
        out.append(random_point(f"r{i}", text, {
            "tier": tier, "date": f"2026-0{1 + i % 6}-{10 + i % 9}", "session_id": f"s{i // 3}",
            "project": ["alpha", "beta", ""][i % 3], "scope": "user" if i % 11 == 0 else "project",
            "priority": ["high", "low"][i % 2] if tier == "observations" else None,
            "source_message_ids": [f"m{i}"] if tier == "messages" else [f"m{i + 1}", f"m{i + 2}"],
            **({"role": "user", "message": text} if tier == "messages" else {})}))
    return out


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    folder = tmp_path_factory.mktemp("edge-recall")
    data = points()
    store = EdgeStore(Path(folder) / "vectors", dimension=DIM, lock_timeout=5)
    store.upsert(data)
    shard = ShardRecall(store)
    yield shard, RecallIndex(store.scroll_all(with_vectors=True)), data
    shard.close()


FILTERS = [
    RecallFilters(),
    RecallFilters(project="alpha"),
    RecallFilters(tier="observations", priority="high"),
    RecallFilters(since="2026-03-01", until="2026-04-30"),
    RecallFilters(session_id="s3", tier="messages"),
]


TOLERANCE = 5e-4  # the shard's dense scores are cosines with the float16 copies of its vectors (the payload
CLOSE = 3e-4  # table's): within ~2e-4 of the float32 ones


def same_list(mine, other) -> None:
    """The same scores, and the same points but where a score ties at the list's cutoff (keyword
    scores tie often on a 12-word vocabulary, and the two break ties their own ways)."""
    assert sorted(s for _, s in mine) == pytest.approx(sorted(s for _, s in other), rel=TOLERANCE, abs=CLOSE)
    cutoff = min((s for _, s in other), default=0.0) * (1 + TOLERANCE) + CLOSE
    assert {p for p, s in mine if s > cutoff} == {p for p, s in other if s > cutoff}


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: repr(f)[13:60])
def test_the_shard_gives_the_in_memory_index_lists(sources, filters):
    shard, index, data = sources
    norm = sum(x * x for x in data[5].dense) ** 0.5  # the model's vectors are unit length; cosine = dot
    vector = [x / norm for x in data[5].dense]
    query = CandidateQuery(dense=vector, terms=tokenize("redis pool retry"), k=15, parts=[tokenize("docker")],
                           part_depth=5)
    ours, theirs = shard.candidates(query, filters), index.candidates(query, filters)
    assert ours.dense and ours.sparse and ours.parts[0]
    for mine, other in ((ours.dense, theirs.dense), (ours.sparse, theirs.sparse), (ours.parts[0], theirs.parts[0])):
        same_list(mine, other)
    # the shard hands ids and scores; the payloads of the candidates ranked are read by id
    assert ours.payloads == {}
    found = {pid for ranked in (ours.dense, ours.sparse, *ours.parts) for pid, _ in ranked}
    payloads = shard.payloads_of(found)
    assert set(payloads) == found
    assert {pid: p["text"] for pid, p in payloads.items()} == {pid: p["text"] for pid, p in index.payloads_of(found).items()}
    if filters.project:
        assert all(p["project"] in ("alpha", "") or p["scope"] == "user" for p in payloads.values())
        assert any(p["project"] == "" for p in payloads.values())  # no known project: everyone's
    # a named time's own best candidates join: the dense lists (no ties) hold the same points
    timed = CandidateQuery(dense=vector, terms=[], k=10, window=(date(2026, 2, 1), date(2026, 3, 31)))
    assert dict(shard.candidates(timed, filters).dense) == pytest.approx(
        dict(index.candidates(timed, filters).dense), rel=TOLERANCE, abs=CLOSE)


def test_the_shard_finds_the_messages_observations_cite(sources):
    shard, index, data = sources
    observations = [p.payload | {"text": p.text} for p in data if p.payload["tier"] == "observations"]
    cited = shard.cited_messages(observations)
    assert cited and cited == index.cited_messages(observations)
    assert set(shard.payloads_of(cited.values())) == set(cited.values())


def test_what_queries_walk_is_read_once_after_an_open_and_the_float_vectors_are_not(sources):
    from memory_pipeline.resources.vectors.edge_payloads import table_path
    from memory_pipeline.resources.vectors.edge_recall import FILTERED_FIELDS, PAGED_IN, ROOM_SHARE, data_bytes, read_once

    shard, _, _ = sources
    found = {p for pattern in PAGED_IN for p in shard.store.path.glob(pattern)}
    walked = {f for p in found for f in ([p] if p.is_file() else p.rglob("*")) if f.is_file()}
    indexes = {p for p in shard.store.path.glob("segments/*/payload_index/**/*") if p.is_file()}
    filtered = {p for p in indexes if any(f"-{field[:8]}-" in str(p) for field in FILTERED_FIELDS)}
    asked = {p for p in indexes if "-session_-" in str(p)}  # a filter only on request (`--session`)
    vectors = set(shard.store.path.glob("segments/*/vector_storage-dense/**/*"))
    assert filtered and filtered <= walked and asked and not asked & walked
    assert not any("-source_m-" in str(p) for p in walked)  # the cited messages: found in the payload table
    assert not any(p.name.startswith("matrix") for p in walked) and vectors
    shard.store.table.close()  # its log checkpointed into the file
    payloads = {table_path(shard.store.path)}  # the payload table beside the shard, not the shard's payload files
    assert payloads <= {p for p in shard.store.path.parent.iterdir() if p.is_file()} and not payloads & walked
    assert not any("payload_storage" in str(p) for p in walked)
    size, walked_bytes = sum(data_bytes(p) for p in payloads), sum(data_bytes(p) for p in walked)
    # the payloads too where the memory left holds ROOM_SHARE times their bytes; not in a service held tighter
    assert read_once(shard.store.path, headroom=lambda: None) == walked_bytes > 0
    assert read_once(shard.store.path, headroom=lambda: ROOM_SHARE * size - 1) == walked_bytes
    assert read_once(shard.store.path, headroom=lambda: ROOM_SHARE * size) == walked_bytes + size > walked_bytes


def test_the_page_in_reads_a_files_data_and_not_its_holes(tmp_path, monkeypatch):
    import errno
    import os

    from memory_pipeline.resources.vectors import edge_recall
    from memory_pipeline.resources.vectors.edge_recall import _read, data_bytes

    sparse = tmp_path / "page_0.dat"  # as Edge sizes a memory map ahead of what it holds
    with sparse.open("wb") as handle:
        handle.write(b"a" * 8192)
        handle.seek(4 << 20)
        handle.write(b"b" * 4096)
        handle.truncate(16 << 20)
    assert sparse.stat().st_size == 16 << 20
    assert data_bytes(sparse) == 8192 + 4096 or data_bytes(sparse) == 16 << 20  # a filesystem without holes
    assert _read([sparse], chunk=4096) == data_bytes(sparse)
    assert data_bytes(tmp_path / "gone.dat") == 0 and _read([tmp_path / "gone.dat"], 4096) == 0
    seek = os.lseek

    def unable(fd, offset, whence):  # a filesystem that cannot tell its holes
        if whence == os.SEEK_DATA:
            raise OSError(errno.EINVAL, "SEEK_DATA")
        return seek(fd, offset, whence)
    monkeypatch.setattr(edge_recall.os, "lseek", unable)
    assert data_bytes(sparse) == 16 << 20 and _read([sparse], chunk=1 << 20) == 16 << 20  # read whole


def test_memory_headroom_is_the_cgroups_room_where_its_limit_is_below_the_systems(tmp_path, monkeypatch):
    from memory_pipeline.resources.vectors import memory_room

    available = memory_room._available()
    assert available and available > 0
    folder = tmp_path / "memory" / "svc"
    folder.mkdir(parents=True)
    monkeypatch.setattr(memory_room, "own_cgroup", lambda root: (folder, "v1"))
    (folder / "memory.limit_in_bytes").write_text("9223372036854771712\n")  # v1's "no limit"
    (folder / "memory.usage_in_bytes").write_text(f"{300 << 20}\n")
    assert abs(memory_room.memory_headroom() - available) < 256 << 20  # the system's, give or take its drift
    (folder / "memory.limit_in_bytes").write_text(f"{1 << 30}\n")
    assert memory_room.memory_headroom() == (1 << 30) - (300 << 20)
    (folder / "memory.usage_in_bytes").write_text(f"{2 << 30}\n")  # over its limit: no room
    assert memory_room.memory_headroom() == 0
    monkeypatch.setattr(memory_room, "own_cgroup", lambda root: (folder, "v2"))
    (folder / "memory.max").write_text("max\n")
    (folder / "memory.current").write_text("1\n")
    assert abs(memory_room.memory_headroom() - available) < 256 << 20


def test_a_fact_merged_away_is_left_out_by_the_shard_as_by_the_index(tmp_path):
    data = points(30)
    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    store.upsert(data)
    merged = data[3].id  # an observation (every third point)
    store.set_payload([merged], {"merged_into": data[6].id})
    shard = ShardRecall(store)
    try:
        query = CandidateQuery(dense=list(data[3].dense), terms=tokenize(data[3].text), k=30)
        ours = shard.candidates(query, RecallFilters())
        index = RecallIndex(store.scroll_all(with_vectors=True)).candidates(query, RecallFilters())
        listed = {pid for ranked in (ours.dense, ours.sparse) for pid, _ in ranked}
        assert merged not in listed and data[6].id in listed  # its own vector was the query's
        assert listed == {pid for ranked in (index.dense, index.sparse) for pid, _ in ranked}
    finally:
        shard.close()


def test_only_the_best_fused_candidates_are_ranked_with_their_payloads_read(tmp_path):
    from memory_pipeline.flows.recall.engine import ranked_candidates
    from memory_pipeline.stages.recall.rank import Fused

    data = points(12)
    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    store.upsert(data)
    store.set_payload([data[1].id], {"merged_into": data[2].id})
    shard = ShardRecall(store)
    try:
        fused = {p.id: Fused(score=1.0 - n / 100) for n, p in enumerate(data)}  # data[0] best
        kept, payloads = ranked_candidates(shard, fused, {}, depth=5)
        best = [p.id for p in data[:5] if p.id != data[1].id]  # the merged one is read, then left out
        assert list(kept) == best and set(payloads) == set(best)
        assert [payloads[pid]["text"] for pid in best] == [p.text for p in data[:5] if p.id != data[1].id]
        known = {data[0].id: {"text": "handed over by the source"}}
        assert ranked_candidates(shard, fused, known, depth=1)[1] == known
    finally:
        shard.close()


def with_passages(n: int = 60):
    """points(n) whose every fourth message is a user's long turn, with its passages (random vectors)."""
    from memory_pipeline.stages.index.passages import passage_points
    from memory_pipeline.resources.vectors.vector_points import StorePoint

    data, passages = points(n), []
    for number, point in enumerate(data):
        if point.payload["tier"] == "messages" and number % 4 == 1:
            point.payload["message"] = (f"Turn {number} says the deploy uses docker. " * 3
                                        + f"It also says the cache is redis {number}. " * 3)
            for pid, text, payload in passage_points(point.id, point.payload):
                passages.append(StorePoint(id=pid, text=text, payload=payload,
                                           dense=random_point(pid, text).dense, sparse=None))
    return data, passages


@pytest.mark.parametrize("filters", [RecallFilters(), RecallFilters(tier="messages", project="beta"),
                                     RecallFilters(since="2026-02-01"), RecallFilters(tier="observations")],
                         ids=lambda f: repr(f)[13:60])
def test_a_turn_scores_by_its_best_passage_in_the_shard_as_in_the_index(tmp_path, filters):
    data, passages = with_passages()
    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    store.upsert(data + passages)
    shard = ShardRecall(store)
    try:
        index = RecallIndex(store.scroll_all(with_vectors=True))
        target = next(p for p in passages if p.payload["project"] == "beta" and p.payload["date"] >= "2026-02-01")
        norm = sum(x * x for x in target.dense) ** 0.5
        query = CandidateQuery(dense=[x / norm for x in target.dense], terms=tokenize("docker redis"), k=10)
        ours, theirs = shard.candidates(query, filters), index.candidates(query, filters)
        assert dict(ours.dense) == pytest.approx(dict(theirs.dense), rel=TOLERANCE, abs=CLOSE)
        same_list(ours.sparse, theirs.sparse)
        listed = {pid for ranked in (ours.dense, ours.sparse, theirs.dense, theirs.sparse) for pid, _ in ranked}
        assert not listed & {p.id for p in passages}  # a passage is never a candidate of its own
        turn = target.payload["passage_of"]
        if filters.tier == "observations":
            assert turn not in listed
        else:  # the query is the passage's own vector: its turn comes first, at the passage's score
            assert ours.dense[0][0] == turn and ours.dense[0][1] == pytest.approx(1.0, abs=1e-3)
            assert dict(ours.dense)[turn] > index.dense[index.row_of[turn]] @ query.dense  # not the turn's own
    finally:
        shard.close()


def test_passages_change_neither_keyword_statistics_nor_a_sessions_points(tmp_path):
    data, passages = with_passages()
    store = EdgeStore(tmp_path / "vectors", dimension=DIM, lock_timeout=5)
    store.upsert(data)
    before = store.keyword_stats.read()
    store.upsert(passages)
    assert store.keyword_stats.read() == before  # a passage is no keyword document
    alone = RecallIndex(data)
    both = RecallIndex(store.scroll_all(with_vectors=True))
    query = tokenize("docker redis cache")
    assert dict(both.sparse_search(query, 20, None)) != {}
    assert {both.ids[r]: s for r, s in both.sparse_search(query, 20, None)} == pytest.approx(
        {alone.ids[r]: s for r, s in alone.sparse_search(query, 20, None)}, rel=1e-5)
    session = passages[0].payload["session_id"]
    shard = ShardRecall(store)
    try:
        for source in (shard, both):
            found = source.points(None, session, 100)
            assert found and all(p["tier"] != "passages" for p in found)
            assert {p["id"] for p in found} == {p.id for p in data if p.payload["session_id"] == session}
    finally:
        shard.close()
