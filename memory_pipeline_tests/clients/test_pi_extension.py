"""pi, live (issue 49): `hooks install pi` writes the shipped extension, and the real pi, driven in
`--mode rpc` against the loopback model server, carries the briefing in its first request, sends a
compaction event when asked to compact and a shutdown event when it ends; both land in the inbox
and name the pi session."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memory_pipeline_tests.support.agent_clients import LOOPBACK_MODEL, ClientHome
from memory_pipeline_tests.support.loopback_models import LoopbackModels

FACT = "Remember: the orders-api staging database listens on port 6543."
MEMORY = "# MEMORY\n\n## Hard Rules\n\n- (2026-11-20) In orders-api, run the tests with `make check`. <!-- p-20261120-001 -->\n"


def rpc_session(home: ClientHome, project: Path, turns: list[dict], timeout: float = 240) -> list[dict]:
    """pi `--mode rpc`: each command sent once the one before is done (a prompt: at `agent_end`; a
    compaction: at its response); then stdin closes, which ends pi. Returns every line pi wrote."""
    argv = [home.clients.node, str(home.clients.pi), "--provider", "loopback", "--model", LOOPBACK_MODEL,
            "--mode", "rpc"]
    process = subprocess.Popen(argv, cwd=project, env=home.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    seen: list[dict] = []
    for command in turns:
        process.stdin.write(json.dumps(command) + "\n")
        process.stdin.flush()
        for line in process.stdout:
            event = json.loads(line) if line.startswith("{") else {}
            seen.append(event)
            if command["type"] == "prompt" and event.get("type") == "agent_end":
                break
            if command["type"] == "compact" and event.get("type") == "response" and event.get("command") == "compact":
                assert event.get("success"), event
                break
    process.stdin.close()
    seen += [json.loads(line) for line in process.stdout if line.startswith("{")]
    assert process.wait(timeout=timeout) == 0, process.stderr.read() if process.stderr else ""
    return seen


@pytest.fixture(scope="module")
def pi_run(clients, models: LoopbackModels, module_tmp: Path):
    models.answer_when("staging database", "Noted: port 6543.")
    workspace = module_tmp / "ws-pi"
    home = ClientHome(clients, module_tmp / "home-pi", models.url, workspace)
    project = module_tmp / "orders-api"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    installed = home.memory(["hooks", "install", "pi"], cwd=project)
    assert installed.returncode == 0, installed.stderr
    workspace.mkdir(exist_ok=True)
    (workspace / "MEMORY.md").write_text(MEMORY)
    before = len(models.requests)
    try:
        lines = rpc_session(home, project, [{"type": "prompt", "message": FACT}, {"type": "compact"},
                                            {"type": "prompt", "message": "And the production port?"}])
        yield home, project, workspace, models.requests[before:], lines
    finally:
        home.memory(["stop"], cwd=project, timeout=60)


def events(workspace: Path) -> list[dict]:
    found = [*(workspace / "inbox").glob("*.json"), *(workspace / "inbox" / "processed").rglob("*.json")]
    return [json.loads(path.read_text()) for path in found]


def test_install_writes_the_extension_and_uninstall_removes_it(clients, models, module_tmp: Path):
    home = ClientHome(clients, module_tmp / "home-pi-2", models.url, module_tmp / "ws-pi-2")
    extension = home.home / ".pi" / "agent" / "extensions" / "memory-pipeline.ts"
    assert home.memory(["hooks", "install", "pi"], cwd=home.home).returncode == 0
    text = extension.read_text()
    assert text.startswith("// memory-pipeline pi extension:") and "__MEMORY_PIPELINE__" not in text
    assert f'"MEMORY_WORKSPACE": "{module_tmp / "ws-pi-2"}"' in text
    assert home.memory(["hooks", "install", "pi", "--uninstall"], cwd=home.home).returncode == 0
    assert not extension.exists() and not extension.parent.exists()


def test_the_briefing_is_in_the_first_request(pi_run):
    _, _, _, requests, _ = pi_run
    first = next(r for r in requests if FACT in r.text)
    assert "# Session briefing" in first.text and "make check" in first.text
    later = next(r for r in requests if "production port" in r.last_user_text)
    assert "make check" in later.text  # every turn, after the compaction too


def test_the_compaction_and_shutdown_events_land_in_the_inbox(pi_run):
    home, _, workspace, _, _ = pi_run
    [session_file] = list(home.pi_sessions.rglob("*.jsonl"))
    session_id = json.loads(session_file.read_text().splitlines()[0])["id"]
    found = [e for e in events(workspace) if e.get("data", {}).get("sessionId") == session_id]
    triggers = sorted(e["data"]["trigger"] for e in found)
    assert triggers == ["compaction", "shutdown"], [e.get("data") for e in events(workspace)]
    assert all(e["data"]["transcript"]["format"] == "pi" for e in found)
