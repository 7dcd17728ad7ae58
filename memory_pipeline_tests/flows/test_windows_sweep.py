"""A waiting window is sent at the latest when its session is over (idle for SESSION_IDLE)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

from memory_pipeline.flows.intake.inbox import take_inbox
from memory_pipeline.flows.intake.windows import close_idle_sessions, send_window, waiting_marker
from memory_pipeline.resources.files.hook_state import HookStateStore
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.windows import SESSION_IDLE
from memory_pipeline_tests.support.doors import env_settings

NOW = datetime(2026, 11, 24, 10, 0).astimezone()
TURNS = ["which port does the API use?", "move it to 8081", "and update the compose file", "thanks, done for today"]


def _write(path: Path, turns: int) -> None:
    lines = []
    for n in range(1, turns + 1):
        for role, text in (("user", TURNS[n - 1]), ("assistant", f"Answer {n}.")):
            message = {"role": role, "content": text if role == "user" else [{"type": "text", "text": text}]}
            if role == "assistant":
                message["id"] = f"m{n}"
            lines.append(json.dumps({"type": role, "uuid": f"{role[0]}{n}", "sessionId": "sweep", "cwd": "/tmp/p",
                                     "timestamp": f"2026-11-24T09:0{n}:00Z", "message": message}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _end(workspace: Workspace, path: Path, at: datetime):
    return send_window(workspace, path, session_id="sweep", trigger="shutdown", now=at, format="claude-code", settings=env_settings())


def test_the_tail_of_a_session_that_showed_work_is_observed_once_it_is_idle(tmp_path: Path) -> None:
    workspace, path = Workspace(tmp_path / "ws"), tmp_path / "sweep.jsonl"
    _write(path, 3)
    assert _end(workspace, path, NOW).event.data.observing == "observed"  # 3 user messages
    _write(path, 4)
    assert _end(workspace, path, NOW).event.data.observing == "waiting"
    assert waiting_marker(workspace, "sweep").exists()
    assert close_idle_sessions(workspace, NOW + SESSION_IDLE - timedelta(minutes=1), settings=env_settings()) == []  # not over yet
    [closed] = close_idle_sessions(workspace, NOW + SESSION_IDLE, settings=env_settings())
    assert closed.event.data.observing == "observed"
    assert [m.id for m in Inbox(workspace).load_transcript(closed.event).messages] == ["u4", "a4"]
    assert not waiting_marker(workspace, "sweep").exists()
    assert HookStateStore(workspace).load("sweep").waiting_from_id is None


def test_a_session_that_never_showed_work_stays_indexed_only(tmp_path: Path) -> None:
    workspace, path = Workspace(tmp_path / "ws"), tmp_path / "sweep.jsonl"
    _write(path, 1)
    assert _end(workspace, path, NOW - SESSION_IDLE * 2).event.data.observing == "waiting"
    take_inbox(workspace, settings=env_settings())  # ingest and the sensor sweep first: the session is long idle
    assert not waiting_marker(workspace, "sweep").exists()
    assert HookStateStore(workspace).load("sweep").waiting_from_id is None
    accepted = [e for d in (workspace.root / "events").iterdir() for e in Inbox(workspace).accepted(d.name)]
    assert [e.data.observing for e in accepted] == ["waiting"]  # nothing new to send, nothing observed


def test_a_waiting_session_whose_transcript_is_gone_is_let_go(tmp_path: Path) -> None:
    workspace, path = Workspace(tmp_path / "ws"), tmp_path / "sweep.jsonl"
    _write(path, 1)
    _end(workspace, path, NOW)
    path.unlink()
    assert close_idle_sessions(workspace, NOW + SESSION_IDLE, settings=env_settings()) == []
    assert not waiting_marker(workspace, "sweep").exists()
