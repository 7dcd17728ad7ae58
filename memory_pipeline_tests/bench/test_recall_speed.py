"""`bench recall --speed --workdir`: a size's workspace is filled once, kept, and measured again without
filling it (the 1M fill takes 20 minutes; its latency is what the next run wants)."""

from __future__ import annotations

import pytest

from benchmarks.recall_speed import (FILL_DAYS, bench_recall_speed, fill_day, fill_id, fill_texts, points_for,
                                     queries_for)

pytestmark = pytest.mark.slow


def test_the_fill_is_dated_in_the_order_it_is_written_as_a_history_is():
    points = list(points_for(600, 8, seed=600))
    days = [p.payload["date"] for p in points]
    assert days == sorted(days) and days[0] == "2026-01-01" and len(set(days)) == FILL_DAYS  # two points a day
    assert days[-1] == fill_day(599, 600) < fill_day(600, 600)
    turns = {p.id: p.payload["date"] for p in points if p.payload["tier"] != "passages"}
    passages = [p for p in points if p.payload["tier"] == "passages"]
    assert len(passages) == 100 and all(turns[p.payload["passage_of"]] == p.payload["date"] for p in passages)


def test_the_fill_is_real_text_as_the_message_index_writes_it():
    from memory_pipeline.stages.index.message_docs import keyword_counts

    fixtures = fill_texts()
    points = list(points_for(600, 8, seed=600))
    messages = [p for p in points if p.payload["tier"] == "messages"]
    assert len(messages) == 300 and {p.payload["role"] for p in messages} == {"user", "assistant"}
    for point in messages:  # the document is the day and the message (and the tail before it)
        words = " ".join(point.payload["message"].split())
        assert point.text.startswith(f"[{int(point.payload['date'][-2:])} ") and f"] {words[:40]}" in point.text
        assert point.payload["message"].strip()[:30] in fixtures.texts[point.payload["role"]]
    by_id = {p.id: p for p in points}
    for passage in (p for p in points if p.payload["tier"] == "passages"):
        assert passage.text.split()[:5] == by_id[passage.payload["passage_of"]].payload["message"].split()[:5]
    lengths = sorted(len(p.payload["message"]) for p in messages)
    assert lengths[0] < 100 < lengths[-1]  # the real lengths' spread, not one size
    vocabulary = {t for p in points if p.payload["tier"] != "passages" for t in keyword_counts(
        {**p.payload, "text": p.text})[0]}
    assert len(vocabulary) > 1000  # the bench's former 59 words gave 59 terms
    assert points == list(points_for(600, 8, seed=600))  # the same fill each time
    queries = queries_for(20, seed=3)
    assert len(set(queries)) == 20 and all(q.rsplit(" ", 1)[0] in " ".join(fixtures.texts["user"].split())
                                            for q in queries)


def test_a_kept_workspace_is_measured_again_without_a_second_fill(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMORY_WORKSPACE", str(tmp_path / "unused"))  # the bench names its own; restored after
    first = bench_recall_speed([300], queries=8, workdir=tmp_path / "kept")["rows"][0]
    shard = tmp_path / "kept" / "points-300" / "state" / "vectors"
    built = {p.name for p in (shard / "segments").iterdir()}
    second = bench_recall_speed([300], queries=8, workdir=tmp_path / "kept")["rows"][0]
    assert first["fill_s"] > 0 and second["fill_s"] is None
    assert first["cold_hits"] == second["cold_hits"] > 0 and second["warm_p95_ms"] > 0
    assert {p.name for p in (shard / "segments").iterdir()} == built  # the same segments, nothing written again

    from benchmarks.recall_speed import _filled
    from memory_pipeline.config import Settings
    from memory_pipeline.flows.recall.engine import open_store
    from memory_pipeline.resources.workspace import Workspace

    workspace = Workspace(tmp_path / "kept" / "points-300")
    store = open_store(workspace, Settings.from_env(), 384)
    assert _filled(workspace, 300, 384)
    store.set_payload([fill_id(300, 298)], {"date": "2026-05-04"})  # as a fill of random days
    assert not _filled(workspace, 300, 384)
    store.set_payload([fill_id(300, 298)], {"date": fill_day(298, 300), "content_hash": "random words"})
    assert not _filled(workspace, 300, 384)  # as a fill of the former 59 words


def test_a_memory_cap_holds_the_service_in_a_cgroup_of_its_own(tmp_path, monkeypatch):
    from benchmarks.memory_cap import MemoryCap
    from memory_pipeline.errors import BadInputError

    try:
        with MemoryCap(256) as probe:
            assert probe.folder.is_dir()
    except BadInputError as exc:
        pytest.skip(f"no writable memory cgroup here: {exc}")
    assert not probe.folder.exists()  # removed on leaving
    monkeypatch.setenv("MEMORY_WORKSPACE", str(tmp_path / "unused"))
    row = bench_recall_speed([300], queries=8, memory_cap_mb=512)["rows"][0]
    # only the service is in the cgroup: its charge is the service's own memory and the pages it read
    assert row["memory_cap_mb"] == 512 and 0 < row["cap_peak_mb"] <= 512
    assert row["cold_hits"] > 0 and row["paged_in_s"] is not None and row["major_faults"] >= 0
    assert row["paged_in_mb"] > 0  # a 300-point shard's walked files and payloads fit in 512 MiB many times
    assert not list(probe.folder.parent.glob("memory-pipeline-bench-*"))
