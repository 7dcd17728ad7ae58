"""Secrets in a session's name and in file paths (issue 47, item 4): a Claude Code `summary` line, a pi session
name and a path read (`…/keys/ghp_…/id.txt`) were stored as they were in events, observations, the daily log's
heading and Dagster's run storage (event logs, run tags), and from there the UI. They are redacted where the
event is made (and where another tool's event is taken), and a session id that holds one is replaced."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from memory_pipeline.config import Settings
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.intake.importer import import_transcripts
from memory_pipeline.flows.secrets import check_stores
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.events import event_to_json, parse_event
from memory_pipeline_tests.faults.harness import dagster_home, ingest_here
from memory_pipeline_tests.support.doors import env_settings

NAME_TOKEN = "ghp_Zx8Cv7Bn6Mq5Wr4Et3Yu2Io1Pa0Sd9Fg8Hj7Q"
PATH_TOKEN = "ghp_Lk9Jh8Gf7Ds6Aq5Wz4Xe3Cr2Vt1By0Nu9Mi8P"
PI_TOKEN = "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"
ID_TOKEN = "ghp_Po0Iu9Yt8Re7Wq6As5Df4Gh3Jk2Lz1Xc0Vb9N"
TOKENS = (NAME_TOKEN, PATH_TOKEN, PI_TOKEN, ID_TOKEN)


def claude_code_session(session_id: str = "7c9e6679-7425-40de-944b-e07fc1f90ae7") -> str:
    def line(number: int, role: str, content, **extra) -> dict:
        return {"type": role, "uuid": f"u{number}", "parentUuid": f"u{number - 1}" if number > 1 else None,
                "sessionId": session_id, "cwd": "/home/dev/app", "timestamp": f"2026-11-21T10:{number:02d}:00Z",
                "message": {"role": role, "content": content}, **extra}

    read = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": f"/home/dev/keys/{PATH_TOKEN}/id.txt"}}
    lines = [
        {"type": "summary", "summary": f"Deploy key rotation with {NAME_TOKEN}", "leafUuid": "u6"},
        line(1, "user", "Rotate the deploy key and check what the key file holds."),
        line(2, "assistant", [{"type": "text", "text": "Reading the key file first."}, read]),
        line(3, "user", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ssh-ed25519 AAAA… ci@host"}]),
        line(4, "assistant", [{"type": "text", "text": "Decided: the key is rotated weekly by the CI job from now on."}]),
        line(5, "user", "Always keep deploy keys out of the repository; we use the vault."),
        line(6, "assistant", [{"type": "text", "text": "Noted: deploy keys live in the vault, never in the repo."}]),
        line(7, "user", "Good, and log every rotation in the ops channel."),
    ]
    return "\n".join(json.dumps(x) for x in lines) + "\n"


def pi_session() -> str:
    entries = [
        {"type": "session", "version": 3, "id": "pi-sess-1", "timestamp": "2026-11-21T11:00:00Z", "cwd": "/home/dev/app"},
        {"type": "session_info", "id": "i1", "parentId": None, "timestamp": "2026-11-21T11:00:01Z",
         "name": f"token {PI_TOKEN} upload"},
    ]
    for number, (role, text) in enumerate([("user", "Upload the model card."), ("assistant", "Uploaded."),
                                            ("user", "Pin the revision."), ("assistant", "Pinned.")], start=2):
        content = text if role == "user" else [{"type": "text", "text": text}]
        entries.append({"type": "message", "id": f"m{number}", "parentId": f"m{number - 1}",
                        "timestamp": f"2026-11-21T11:0{number}:00Z", "message": {"role": role, "content": content}})
    return "\n".join(json.dumps(x) for x in entries) + "\n"


def test_an_event_holds_no_secret_from_a_name_or_a_path(tmp_path):
    ws = Workspace(tmp_path / "ws").create()
    path = tmp_path / "cc.jsonl"
    path.write_text(claude_code_session())
    result = emit_session_event(ws, path, trigger="shutdown", captured_at=datetime(2026, 11, 21, 10, 10, tzinfo=timezone.utc), settings=env_settings())
    event = result.path.read_text()
    assert NAME_TOKEN not in event and PATH_TOKEN not in event
    assert result.event.data.session_name.startswith("Deploy key rotation with [REDACTED:")
    assert result.event.data.files_read == ["/home/dev/keys/[REDACTED:github-token]/id.txt"]


def test_another_tools_event_is_redacted_when_it_is_taken(tmp_path):
    ws = Workspace(tmp_path / "ws").create()
    path = tmp_path / "cc.jsonl"
    path.write_text(claude_code_session())
    event = emit_session_event(ws, path, trigger="shutdown", settings=env_settings()).event
    event.data.session_name, event.data.files_modified = f"by hand {NAME_TOKEN}", [f"/k/{PATH_TOKEN}"]
    taken = parse_event(event_to_json(event).encode())
    assert NAME_TOKEN not in taken.data.session_name and taken.data.files_modified == ["/k/[REDACTED:github-token]"]


def test_a_session_id_that_holds_a_secret_is_replaced(tmp_path):
    ws = Workspace(tmp_path / "ws").create()
    path = tmp_path / f"{ID_TOKEN}.jsonl"
    path.write_text(claude_code_session(session_id=ID_TOKEN))
    report = import_transcripts(ws, [path], Settings(workspace=ws.root))
    [item] = report.items
    assert item.status == "imported" and item.session_id.startswith("session-") and ID_TOKEN not in item.session_id
    assert not any(ID_TOKEN in str(p) for p in ws.root.rglob("*"))


@pytest.mark.slow
def test_names_and_paths_reach_no_store_nor_dagster(workspaces, tmp_path):
    ws = workspaces.new("offline")
    for name, text in (("cc.jsonl", claude_code_session()), ("pi.jsonl", pi_session()),
                       (f"{ID_TOKEN}.jsonl", claude_code_session(session_id=ID_TOKEN))):
        (tmp_path / name).write_text(text)
        emit_session_event(ws, tmp_path / name, trigger="shutdown",
                           captured_at=datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc), settings=env_settings())
    assert ingest_here(ws).success
    heading = "\n".join(p.read_text() for p in (ws.root / "memory").glob("*.md"))
    assert "Deploy key rotation with [REDACTED:" in heading
    leaks = [f"{token[:8]} in {p}" for root in (ws.root, dagster_home(ws)) for p in root.rglob("*")
             if p.is_file() for token in TOKENS if token.encode() in p.read_bytes() or token in str(p)]
    assert leaks == []
    assert check_stores([ws.root, dagster_home(ws)]).findings == []
