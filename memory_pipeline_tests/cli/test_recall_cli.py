"""`memory-pipeline recall`: JSON shape, --queries mode, bad input (exit 2, never a traceback)."""

from __future__ import annotations

import json

import pytest

from memory_pipeline.main import main
from memory_pipeline.resources.vectors.edge_shard import lock_path
from memory_pipeline_tests.flows.test_recall import ROWS, add_points

pytestmark = pytest.mark.slow
# replaced_by: the ledger event that superseded the memory, or null; sources: every session, day and
# message the memory was seen in (ids only; one unless maintenance merged it)
HIT_FIELDS = {"id", "tier", "text", "score", "date", "session_id", "priority", "source_message_ids", "why",
              "replaced_by", "project", "scope", "sources", "provenance", "kind"}


@pytest.fixture
def indexed(workspace):
    return workspace, add_points(workspace, ROWS)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_hits_have_every_field(indexed, capsys):
    code, out, _ = run(capsys, "recall", "redis pool max_connections", "--json", "--no-service", "--limit", "3")
    assert code == 0
    answer = json.loads(out)
    assert answer["query"] == "redis pool max_connections" and 1 <= len(answer["hits"]) <= 3
    for hit in answer["hits"]:
        assert set(hit) == HIT_FIELDS
        assert {"dense_rank", "sparse_rank"} <= set(hit["why"])
    assert answer["hits"][0]["source_message_ids"] == ["u1"]
    code, out, _ = run(capsys, "recall", "uv docker", "--json", "--no-service", "--tier", "observations",
                       "--priority", "high", "--since", "2026-11-01")
    assert code == 0 and [h["priority"] for h in json.loads(out)["hits"]] == ["high"]


def test_a_querys_words_may_be_given_unquoted(indexed, capsys):
    quoted = run(capsys, "recall", "redis pool max_connections", "--json", "--no-service")
    unquoted = run(capsys, "recall", "redis", "pool", "max_connections", "--json", "--no-service")
    assert quoted[0] == unquoted[0] == 0 and json.loads(quoted[1])["hits"]
    ranked = [[(hit["id"], hit["text"]) for hit in json.loads(out)["hits"]] for out in (quoted[1], unquoted[1])]
    assert ranked[0] == ranked[1]  # the same query, the same hits (scores carry the recency of each call's now)


def test_table_output(indexed, capsys):
    code, out, _ = run(capsys, "recall", "keyset pagination", "--no-service")
    assert code == 0 and "keyset" in out and "d1" in out and "said by user" in out


def test_queries_file_answers_one_line_per_query(indexed, capsys, tmp_path):
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": "a", "query": "redis pool"}\n\n{"id": 7, "query": "docker build"}\n'
                       '{"id": "bad", "query": "the of and"}\nnot json\n', encoding="utf-8")
    code, out, _ = run(capsys, "recall", "--queries", str(queries), "--json", "--no-service")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["id"] for line in lines] == ["a", 7, "bad", 5]
    assert lines[0]["hits"] and set(lines[0]["hits"][0]) == HIT_FIELDS
    assert "error" in lines[2] and lines[2]["hits"] == [] and "error" in lines[3]
    assert code == 2


@pytest.mark.parametrize("query", ["", "   ", "x" * 100_000, "the and of", "\x00\x07\x1b"])
def test_bad_queries_exit_2_with_a_message(indexed, capsys, query):
    code, out, err = run(capsys, "recall", query, "--json", "--no-service")
    assert code == 2 and "Traceback" not in err and err.startswith("memory-pipeline: ")
    assert json.loads(out)["hits"] == []


def test_bad_filters_and_missing_query(indexed, capsys):
    assert run(capsys, "recall", "redis", "--since", "last week", "--no-service")[0] == 2
    assert run(capsys, "recall", "redis", "--limit", "0", "--no-service")[0] == 2
    assert run(capsys, "recall", "--no-service")[0] == 2
    assert run(capsys, "recall", "--queries", "/nonexistent.jsonl")[0] == 2


def test_control_characters_and_unicode_still_search(indexed, capsys):
    code, out, _ = run(capsys, "recall", "redis\x00 pool\x1b ✓ 数据库", "--json", "--no-service")
    assert code == 0 and json.loads(out)["hits"]


def test_empty_workspace_and_locked_store(workspace, capsys, monkeypatch):
    code, out, _ = run(capsys, "recall", "anything", "--json")
    assert code == 0 and json.loads(out)["hits"] == []
    add_points(workspace, ROWS[:1])
    from filelock import FileLock

    lock = FileLock(str(lock_path(workspace.state_path("vectors"))))  # a writer holds the shard, no cache yet
    with lock.acquire():
        monkeypatch.setenv("MEMORY_QDRANT_LOCK_TIMEOUT", "1")
        code, out, err = run(capsys, "recall", "redis", "--no-service")
    assert code == 1 and "a writer" in err and "holds it" in err and "Traceback" not in err
