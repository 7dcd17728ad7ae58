"""The command line contract: emit, ingest, status; exit codes 0/1/2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory_pipeline_tests.support.paths import SAMPLES


def run_cli(*args: str, env_extra: dict | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "memory_pipeline.cli", *args], capture_output=True, text=True,
                          env=env, input=stdin, timeout=300)


def test_emit_prints_the_event_path(workspace):
    result = run_cli("emit", "--trigger", "shutdown", "--transcript", str(SAMPLES / "pi-api-refactor.jsonl"))
    assert result.returncode == 0, result.stderr
    path = Path(result.stdout.strip())
    assert path.parent == workspace.inbox and path.exists()
    event = json.loads(path.read_text())
    assert event["name"] == "memory/session.ended" and event["data"]["schemaVersion"] == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--transcript", "/nonexistent/t.jsonl"], "transcript not found"),
        (["--transcript", str(SAMPLES / "pi-api-refactor.jsonl"), "--session-id", "../../etc"], "unsafe sessionId"),
        (["--transcript", str(SAMPLES / "pi-api-refactor.jsonl"), "--captured-at", "yesterday"], "ISO 8601"),
    ],
)
def test_emit_bad_input_exits_2_with_one_line(workspace, args, message):
    result = run_cli("emit", "--trigger", "shutdown", *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_emit_binary_transcript_exits_2(workspace, tmp_path):
    blob = tmp_path / "blob.jsonl"
    blob.write_bytes(bytes(range(256)) * 64)
    result = run_cli("emit", "--trigger", "compaction", "--transcript", str(blob))
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_emit_short_session_shutdown_is_emitted_as_indexed_not_observed(workspace, tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("User: hi\n\nAssistant: hello\n", encoding="utf-8")
    result = run_cli("emit", "--trigger", "shutdown", "--transcript", str(short), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["emitted"] and report["observed"] is False
    assert report["note"] == ("indexed, not observed: 1 user message, 0 tool calls, 0 modified files, 7 characters "
                              "when the session ended (observing needs 3 user messages, 10 tool calls, "
                              "a modified file, 2,000 characters of conversation or a statement to keep)")
    [event_file] = workspace.inbox.glob("*.json")
    assert str(event_file) == report["path"]


def test_emit_accepts_the_old_force_flag_and_ignores_it(workspace, tmp_path):
    """Old scripts pass `--force` (the README once asked for it): accepted, and the event is the one
    written without it."""
    short = tmp_path / "short.txt"
    short.write_text("User: hi\n\nAssistant: hello\n", encoding="utf-8")
    reports = []
    for extra in ((), ("--force",)):
        result = run_cli("emit", "--trigger", "shutdown", "--transcript", str(short), "--json",
                         "--captured-at", "2026-11-21T18:00:00+00:00", *extra)
        assert result.returncode == 0, result.stderr
        reports.append(json.loads(result.stdout))
        Path(reports[-1]["path"]).unlink()
    assert reports[0] == reports[1] and reports[1]["observed"] is False


@pytest.mark.slow
def test_ingest_json_then_status(workspace):
    for sample in ("codex-ci-fix.jsonl", "pi-api-refactor.jsonl"):
        assert run_cli("emit", "--trigger", "shutdown", "--transcript", str(SAMPLES / sample),
                       "--captured-at", "2026-11-21T18:00:00+00:00").returncode == 0
    (workspace.inbox / "junk.json").write_text("[1]", encoding="utf-8")
    result = run_cli("ingest", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["accepted"] == 2 and len(report["quarantined"]) == 1
    assert [d["day"] for d in report["days"]] == ["2026-11-21"]
    assert report["days"][0]["observations"] == 2 and report["success"]
    status = json.loads(run_cli("status", "--json").stdout)
    assert status["events"] == 2 and status["observations"] == 2 and status["quarantined"] == 1
    assert status["pending_days"] == [] and status["services"]["redis"]["ok"]
    assert status["services"]["qdrant"]["points"] > 0 and status["services"]["qdrant"]["stores"] == 1
    again = json.loads(run_cli("ingest", "--json").stdout)
    assert again["days"] == [] and again["accepted"] == 0

    result = run_cli("reflect", "--date", "2026-11-21", "--json")
    assert result.returncode == 0, result.stderr
    reflected = json.loads(result.stdout)
    assert reflected["success"] and reflected["observations"] == 2 and reflected["staged"]
    review = workspace.review_md.read_text(encoding="utf-8")
    assert all(f"{p['id']}" in review for p in reflected["staged"])
    listed = json.loads(run_cli("review", "list", "--json").stdout)
    assert {p["id"] for p in listed["proposals"]} == {p["id"] for p in reflected["staged"]}


@pytest.mark.parametrize("command", ["ingest", "reflect"])
def test_a_date_outside_the_partitions_exits_2(workspace, command):
    result = run_cli(command, "--date", "1999-01-01")
    assert result.returncode == 2 and "not a daily partition" in result.stderr
