"""It runs by itself: a real Claude Code session in a fresh HOME whose environment carries an
Anthropic key, then nothing typed. The session's first hook starts the workspace's Dagster daemon
(detached), the daemon's inbox sensor ingests the session, its fact is recallable and in the next
session's briefing, and it was observed offline: the key alone chose no provider."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest

from memory_pipeline.resources.daemons.dagster_daemon import daemon_pid
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.cli.hook_helpers import wait_for
from memory_pipeline_tests.support.agent_clients import ClientHome
from memory_pipeline_tests.support.leaks import leftover_services
from memory_pipeline_tests.support.loopback_models import LoopbackModels

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

SAID = "Remember: the staging server for orders-api listens on port 8471."
REPLY = "Noted: the staging server for orders-api listens on port 8471."
# A session the Observer observes: three user messages (stages/windows.py)
TURNS = [(SAID, REPLY),
         ("Also remember that staging deploys go through the release-train job on Tuesdays.",
          "Noted: staging deploys go through the release-train job on Tuesdays."),
         ("Thanks, that is all for now.", "You're welcome.")]
ASK = "Which port does the orders-api staging server listen on?"
ANSWER = "The orders-api staging server listens on port 8471."


def recalled(home: ClientHome, project: Path) -> bool:
    done = home.memory(["recall", "staging server port", "--json"], cwd=project, timeout=300)
    return done.returncode == 0 and any("8471" in hit["text"] for hit in json.loads(done.stdout)["hits"][:5])


def test_a_session_is_remembered_and_briefed_with_nothing_typed(clients, models: LoopbackModels, tmp_path: Path,
                                                                monkeypatch):
    for said, reply in TURNS:
        models.answer_when(said, reply)
    models.answer_when(ASK, ANSWER)
    monkeypatch.setenv("MEMORY_DAEMON_AUTOSTART", "1")  # the suite turns it off elsewhere; a user has it on
    home = ClientHome(clients, tmp_path / "home", models.url, tmp_path / "home" / ".memory-pipeline" / "workspace")
    workspace = Workspace(home.workspace)
    project = tmp_path / "orders-api"
    project.mkdir()
    assert home.install_hooks(project).returncode == 0
    try:
        status = home.claude_conversation(["--session-id", str(uuid.uuid4())], project, [said for said, _ in TURNS])
        ended = time.monotonic()
        assert status == 0
        requests_by_claude = len(models.requests)
        assert wait_for(lambda: daemon_pid(workspace), 180, 2, what="the daemon the first hook started")
        wait_for(lambda: list(workspace.root.glob("observations/*/*.json")), 600, 2, what="the daemon's ingest")
        wait_for(lambda: recalled(home, project), 300, 2, what="recall to find the fact")
        print(f"\nsession end → recallable: {time.monotonic() - ended:.1f} s")
        observed = [json.loads(p.read_text()) for p in workspace.root.glob("observations/*/*.json")]
        assert {o["model"] for o in observed} == {"offline-extractive-1"}
        assert len(models.requests) == requests_by_claude  # the pipeline sent nothing to the model server

        second = home.claude(["-p", ASK], cwd=project)
        assert second.returncode == 0, second.stderr
        request = next(r for r in models.model_requests() if ASK in r.text)
        briefing = request.text.split("# Session briefing", 1)[1]
        assert "8471" in briefing
        assert "Memory observed by offline-extractive-1 (offline)" in briefing
    finally:
        home.memory(["service", "stop"], cwd=project, timeout=180)
    assert daemon_pid(workspace) is None
    assert leftover_services(tmp_path) == []
