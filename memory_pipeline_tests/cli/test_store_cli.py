"""`memory-pipeline store move`: what it refuses, in one line (the move itself: resources/test_edge_store.py)."""

from __future__ import annotations

import json

from memory_pipeline.main import main
from memory_pipeline_tests.flows.test_recall import ROWS, add_points


def test_store_move_refuses_a_non_url_and_a_move_to_where_it_already_is(workspace, capsys, monkeypatch):
    monkeypatch.delenv("QDRANT_URL", raising=False)
    assert main(["store", "move", "--to", "qdrant.example"]) == 2
    err = capsys.readouterr().err
    assert "Qdrant server URL" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert main(["store", "move", "--to", "embedded"]) == 2
    assert "already the embedded one" in capsys.readouterr().err


def test_store_move_to_an_unreachable_server_fails_clearly_and_keeps_the_shard(workspace, capsys, monkeypatch):
    monkeypatch.delenv("QDRANT_URL", raising=False)
    add_points(workspace, ROWS)
    assert main(["store", "move", "--to", "http://127.0.0.1:9", "--json"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "127.0.0.1:9" in err
    assert main(["recall", "redis connection pool", "--json", "--no-service"]) == 0
    assert json.loads(capsys.readouterr().out)["hits"]  # the embedded shard is untouched
