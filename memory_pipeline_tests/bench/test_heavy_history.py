"""The heavy history of `bench engine --days`: generated at the real transcripts' message lengths and mix,
a day's worth of indexed messages a day, read by the product's parser; through import and ingest, the
model alone sees exactly the texts the message index embedded. Today's side of `bench engine` writes
the former week stores, not the workspace's Edge shard."""

from __future__ import annotations

import statistics
from collections import Counter
from datetime import datetime, timezone

import pytest

from benchmarks.heavy_history import FIXTURE_FILES, measure_lengths, write_heavy_history
from benchmarks.latency_day import default_fixtures
from memory_pipeline.stages.transcripts.parse import parse_transcript

pytestmark = pytest.mark.skipif(not all((default_fixtures() / f).is_file() for f in FIXTURE_FILES),
                                reason="the shared real transcripts (../shared/fixtures/transcripts) are absent")
TODAY = datetime(2026, 11, 27, tzinfo=timezone.utc)


def test_generated_days_follow_the_real_lengths_and_mix(tmp_path):
    lengths = measure_lengths()
    summary = lengths.summary()
    # the v3 copy left out; 61 user messages: the spotter session's AskUserQuestion answer is the user's
    assert summary["user"]["messages"] == 61 and summary["assistant"]["messages"] == 339
    written = write_heavy_history(tmp_path, days=2, today=TODAY, per_day=400, lengths=lengths)
    assert written["indexed_messages"] == 800
    chars: dict[str, list[int]] = {"user": [], "assistant": [], "tool": []}
    per_day: Counter = Counter()
    for path in tmp_path.rglob("*.jsonl"):
        for message in parse_transcript(path).messages:
            if message.role in ("user", "assistant") and message.text.strip():
                chars[message.role].append(len(message.text))
                per_day[message.timestamp.date().isoformat()] += 1
            chars["tool"].extend(len(r.text) for r in message.tool_results)
    assert per_day == {"2026-11-25": 400, "2026-11-26": 400}
    for role in chars:  # medians of a few hundred draws from the real lengths
        assert statistics.median(chars[role]) == pytest.approx(summary[role]["median_chars"], rel=0.35), role
    assert len(chars["assistant"]) / len(chars["user"]) == pytest.approx(lengths.replies_per_user, rel=0.25)
    assert len(chars["tool"]) / len(chars["assistant"]) == pytest.approx(lengths.tools_per_reply, rel=0.25)


def test_same_seed_same_history(tmp_path):
    lengths = measure_lengths()
    for name in ("a", "b"):
        write_heavy_history(tmp_path / name, days=1, today=TODAY, per_day=150, lengths=lengths)
    first = {p.relative_to(tmp_path / "a"): p.read_bytes() for p in (tmp_path / "a").rglob("*.jsonl")}
    second = {p.relative_to(tmp_path / "b"): p.read_bytes() for p in (tmp_path / "b").rglob("*.jsonl")}
    assert first and first == second


@pytest.fixture
def own_environment(monkeypatch):
    """The bench points this process at its own workspace: set back after the test."""
    for name in ("MEMORY_WORKSPACE", "DAGSTER_HOME"):
        monkeypatch.setenv(name, "unset")


def test_history_through_import_and_ingest_and_the_model_on_the_same_texts(own_environment):
    from benchmarks.engine_history import bench_history

    figures = bench_history(days=1, per_day=40)
    assert figures["runs"] == 1 and figures["messages"] == 40
    # the 40 messages and the passages of the user's longer turns, the same texts on both sides
    assert figures["embedded"] == figures["model_texts"] > 40
    assert figures["ratio"] > 0 and figures["store_mb"] > 0 and figures["peak_rss_mb"] > 0


def test_history_onto_a_filled_shard_is_indexed_into_a_copy_of_it(tmp_path, own_environment):
    from benchmarks.engine_history import bench_history
    from benchmarks.recall_speed import bench_recall_speed

    bench_recall_speed([300], queries=4, workdir=tmp_path)  # keeps tmp_path/points-300, as `--workdir` does
    filled = tmp_path / "points-300" / "state" / "vectors"
    before = sorted(p.name for p in filled.rglob("*"))
    figures = bench_history(days=1, per_day=40, onto=tmp_path / "points-300")
    assert figures["shard_points_before"] == 300 and figures["embedded"] > 40  # with the passages
    assert figures["shard_points_after"] >= 300 + figures["embedded"] and figures["ratio"] > 0
    assert sorted(p.name for p in filled.rglob("*")) == before  # the filled workspace itself is left as it was
    assert figures["copied_beside_shard"] == ["vectors.bm25.json", "vectors.payloads.sqlite"]  # its keyword
    # statistics (else every point would be re-keyed, written again, at the first open) and its payload table


def test_a_shard_is_copied_with_its_holes_as_holes(tmp_path):
    """Edge sizes its files ahead of their data; a copy that wrote the holes as zeros made every open of a 1M
    copy read them from the disk (11-16 s against 1.5-2.5)."""
    from benchmarks.engine_history import copy_sparse
    from memory_pipeline.resources.vectors.edge_recall import data_bytes

    source = tmp_path / "vectors"
    (source / "segments" / "a").mkdir(parents=True)
    with (source / "segments" / "a" / "flags").open("wb") as handle:
        handle.write(b"head")
        handle.seek(64 << 20)  # a 64 MiB hole, then data, then a hole to the end
        handle.write(b"tail")
        handle.truncate(128 << 20)
    (source / "edge_config.json").write_text("{}")
    copy_sparse(source, tmp_path / "copy")
    copied = tmp_path / "copy" / "segments" / "a" / "flags"
    assert copied.stat().st_size == 128 << 20
    assert copied.read_bytes() == (source / "segments" / "a" / "flags").read_bytes()
    assert data_bytes(copied) < 1 << 20  # a few blocks, not 128 MiB of zeros
    assert copied.stat().st_blocks * 512 < 1 << 20 and (tmp_path / "copy" / "edge_config.json").read_text() == "{}"


def test_history_onto_a_folder_without_a_shard_is_a_clear_error(tmp_path, own_environment):
    from benchmarks.engine_history import bench_history
    from memory_pipeline.errors import BadInputError

    with pytest.raises(BadInputError, match="no Qdrant Edge shard"):
        bench_history(days=1, per_day=4, onto=tmp_path)


def test_todays_side_writes_the_week_stores_not_the_edge_shard(tmp_path, own_environment):
    pytest.importorskip("qdrant_edge")
    from benchmarks import engine_sides
    from benchmarks.engine_data import rows

    store = engine_sides.today_store(tmp_path, 384)
    engine_sides.today_write(store, next(rows(50, 384, seed=3, batch=50)))
    assert engine_sides.today_held(tmp_path, 384, [r.id for r in next(rows(50, 384, seed=3, batch=50))]) == 50
    assert (tmp_path / "state" / "qdrant").is_dir() and not (tmp_path / "state" / "vectors").exists()
