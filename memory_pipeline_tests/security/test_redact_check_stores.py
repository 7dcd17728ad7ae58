"""`redact-check` reads what the stores hold, decoded: a secret planted in a Qdrant payload (a
pickle in SQLite), a Redis value (the append-only file), a Dagster-style compressed JSON blob or
a JSON Lines cache is found and named by path, place and kind; the binary noise around them (a
thinking block's signature, vectors, pages, random bytes) is not a finding.
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
import zlib

from memory_pipeline.flows.secrets import check_stores
from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.resources.vectors.vector_store import VectorStore
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.resources.test_vector_store import DIM, random_point
from memory_pipeline_tests.support.doors import embedded_redis

KEY = "sk-ant-api03-Pl4nt3dK3yQm3Zp9Rt7Lx2Nv5Bc8Kd1Hf4"
SIGNATURE = "EqQBCkgIBRABGAIiQJx" + "".join(random.Random(7).choice("ABCDEFabcdef0123456789+/") for _ in range(400))


def qdrant_with(root, texts: list[str]) -> None:
    store = VectorStore(root, None, dimension=DIM, lock_timeout=5.0)
    store.ensure_collection()
    store.upsert([random_point(f"p{i}", text, {"text": text, "session_id": "s1"}) for i, text in enumerate(texts)])


def edge_with(root, texts: list[str]) -> None:
    EdgeStore(root, dimension=DIM, lock_timeout=5.0).upsert(
        [random_point(f"e{i}", text, {"session_id": "s1"}) for i, text in enumerate(texts)])


def wait_for_rewrite(client, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while client.info("persistence")["aof_rewrite_in_progress"] or client.info("persistence").get("aof_rewrite_scheduled"):
        assert time.monotonic() < deadline, "the AOF rewrite did not finish"
        time.sleep(0.05)


def test_a_planted_secret_is_found_in_each_decoded_store_and_noise_is_not(tmp_path):
    ws = Workspace(tmp_path / "ws").create()
    qdrant_with(ws.state / "qdrant", ["a clean fact about Redis", f"the deploy used {KEY}"])
    edge_with(ws.state / "vectors", ["another clean fact", f"the token was {KEY}"])
    redis = embedded_redis(ws.state)
    try:
        redis.ensure_running()
        client = redis.client()
        client.set("memory:hot:clean", json.dumps({"text": "nothing here", "signature": SIGNATURE}))
        client.set("memory:hot:leak", json.dumps({"text": f"token {KEY}"}))
        client.bgrewriteaof()
        wait_for_rewrite(client)  # under load the rewrite can outlive stop(), leaving a half-written file
        client.set("memory:hot:after", "fine")
    finally:
        redis.stop()
    dagster = ws.state / "dagster" / "runs.db"
    dagster.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(dagster)
    db.execute("CREATE TABLE snapshots (id INTEGER PRIMARY KEY, body BLOB)")
    db.execute("INSERT INTO snapshots (body) VALUES (?)", (zlib.compress(json.dumps({"note": KEY}).encode()),))
    db.execute("INSERT INTO snapshots (body) VALUES (?)", (random.Random(3).randbytes(4096),))
    db.commit()
    db.close()
    (ws.root / "transcripts").mkdir(exist_ok=True)
    (ws.root / "transcripts" / "s.jsonl").write_text(json.dumps({"type": "thinking", "signature": SIGNATURE}) + "\n")
    (ws.state / "noise.bin").write_bytes(b"\0" + random.Random(5).randbytes(20_000))

    report = check_stores([ws.root])
    printed = "\n".join(str(f) for f in report.findings)
    assert KEY not in printed and report.unreadable == []
    assert "storage.sqlite:points#" in printed and "anthropic-key" in printed  # the former local store's payload
    assert f"{ws.state / 'vectors.payloads.sqlite'}:payloads#2: anthropic-key" in printed  # the Edge shard's payload
    # table, the second point's row (the shard itself holds only the fields its filters use)
    assert "runs.db:snapshots#1: anthropic-key" in printed
    assert "transcripts/s.jsonl" not in printed and "noise.bin" not in printed
    aof = [f for f in report.findings if "redis" in f.path]
    assert aof and all("memory:hot:leak" in f.where for f in aof), printed
    assert len(report.findings) == 3 + len(aof), printed


def test_a_clean_store_has_no_findings(tmp_path):
    ws = Workspace(tmp_path / "ws").create()
    qdrant_with(ws.state / "qdrant", ["a clean fact", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed it"])
    edge_with(ws.state / "vectors", ["a clean fact", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed it"])
    report = check_stores([ws.root])
    assert report.findings == [] and report.files >= 2


def test_the_check_tells_its_progress_in_bytes_each_file_once(tmp_path):
    ws = Workspace(tmp_path / "ws").create()
    edge_with(ws.state / "vectors", ["a clean fact", f"the token was {KEY}"])
    (ws.root / "memory").mkdir(exist_ok=True)
    (ws.root / "memory" / "2026-11-21.md").write_text("a line\n" * 500)
    totals, read = [], []
    report = check_stores([ws.root], on_found=totals.append, on_file=lambda path, size: read.append((path, size)))
    paths = [path for path, _ in read]
    assert len(totals) == 1 and totals[0] == sum(size for _, size in read) > 3500
    assert len(paths) == len(set(paths)) == report.files  # each file once, after it was read
    assert (ws.root / "memory" / "2026-11-21.md", 3500) in read
    assert ws.state / "vectors" in paths and not any(ws.state / "vectors" in p.parents for p in paths)  # the shard as one


def test_worker_processes_find_what_one_process_finds_in_the_same_order(tmp_path):
    ws = Workspace(tmp_path / "ws").create()
    edge_with(ws.state / "vectors", ["a clean fact", f"the token was {KEY}"])
    (ws.root / "transcripts").mkdir(exist_ok=True)
    for n in range(6):  # files of different sizes: the pool hands the largest out first
        lines = [json.dumps({"text": f"line {i} of session {n}"}) for i in range(200 * (n + 1))]
        lines.insert(n * 7, json.dumps({"text": f"export ANTHROPIC_API_KEY={KEY}"}))
        (ws.root / "transcripts" / f"s{n}.jsonl").write_text("\n".join(lines) + "\n")
    (ws.root / "memory").mkdir(exist_ok=True)
    (ws.root / "memory" / "MEMORY.md").write_text(f"- the deploy key is {KEY}\n")

    check_stores([ws.root])  # the shard's first read leaves its payload table's -wal and -shm files: read after
    serial = check_stores([ws.root])
    read = []
    pooled = check_stores([ws.root], on_file=lambda path, size: read.append(path), workers=2, parallel_from=0)
    assert [str(f) for f in pooled.findings] == [str(f) for f in serial.findings]
    assert (pooled.files, pooled.unreadable) == (serial.files, serial.unreadable)
    assert len(serial.findings) == 8 and KEY not in "\n".join(map(str, serial.findings))  # 6 transcripts, the
    # memory file, the Edge shard's payload row
    assert sorted(read) == sorted(set(read)) and len(read) == serial.files  # each file told once, as it came back
