"""Claude Code (the real CLI) with the hooks `install-hooks` writes, against a loopback model server:
the briefing reaches the first request, PreCompact then the recovery pointer after `/compact`,
SessionEnd events, hook output never reaches the user, and every hook exits 0."""

from __future__ import annotations

import json
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from memory_pipeline_tests.support.agent_clients import ClientHome, hook_timings
from memory_pipeline_tests.support.loopback_models import LoopbackModels

FACT = "Remember: the staging server for orders-api listens on port 8471."
REPLY = "Noted: the staging server for orders-api listens on port 8471."
AFTER_COMPACT = "What were we working on before the compaction?"


@dataclass
class ClaudeRuns:
    home: ClientHome
    project: Path
    session_id: str
    first: subprocess.CompletedProcess  # `claude -p FACT`
    second: subprocess.CompletedProcess  # resumed, stream-json: /compact, then AFTER_COMPACT
    requests_before_second: int
    debug_logs: tuple[Path, Path]


def user_turn(text: str) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": text}]}}) + "\n"


@pytest.fixture(scope="module")
def runs(clients, models: LoopbackModels, module_tmp: Path):
    models.answer_when("staging server", REPLY)
    home = ClientHome(clients, module_tmp / "home", models.url, module_tmp / "workspace")
    project = module_tmp / "orders-api"
    project.mkdir()
    installed = home.install_hooks(project)
    assert installed.returncode == 0, installed.stderr
    session_id = str(uuid.uuid4())
    logs = (module_tmp / "debug-1.log", module_tmp / "debug-2.log")
    try:
        first = home.claude(["-p", FACT, "--session-id", session_id, "--debug-file", str(logs[0])], cwd=project)
        before = len(models.requests)
        second = home.claude(["-p", "--resume", session_id, "--input-format", "stream-json", "--output-format",
                              "stream-json", "--verbose", "--debug-file", str(logs[1])], cwd=project,
                             stdin=user_turn("/compact") + user_turn(AFTER_COMPACT))
        home.settle()
        yield ClaudeRuns(home, project, session_id, first, second, before, logs)
    finally:
        home.memory(["stop"], cwd=project, timeout=60)


def telemetry(runs: ClaudeRuns) -> list[dict]:
    path = runs.home.workspace / "state" / "hooks" / "telemetry.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_install_hooks_wires_every_event(runs):
    settings = json.loads(runs.home.claude_settings.read_text())
    commands = {event: [h["command"] for group in groups for h in group["hooks"]]
                for event, groups in settings["hooks"].items()}
    assert set(commands) == {"PreCompact", "SessionStart", "SessionEnd", "UserPromptSubmit", "Stop"}
    assert all(len(found) == 1 and "hook_entry.py hook claude-code" in found[0] for found in commands.values())


def test_the_briefing_is_in_the_first_request(runs, models):
    first = next(r for r in models.model_requests() if FACT in r.text)
    assert "# Session briefing" in first.text and "project orders-api" in first.text
    carried = [d["hook"] for d in telemetry(runs) if d["decision"] == "inject" and d["session_id"] == runs.session_id]
    assert "UserPromptSubmit" in carried, carried  # no service ran: the start did not wait, the first prompt carried it


def shown_to_the_user(stream_json: str) -> list[str]:
    """The assistant's and the result's text in `--output-format stream-json` (its `hook_response`
    system lines are the SDK's record of each hook, not output for the user)."""
    shown = []
    for line in stream_json.splitlines():
        event = json.loads(line)
        if event.get("type") == "assistant":
            shown += [block.get("text", "") for block in event["message"]["content"]]
        elif event.get("type") == "result":
            shown.append(event.get("result") or "")
    return shown


def test_no_hook_output_reaches_the_user(runs):
    assert runs.first.returncode == 0, runs.first.stderr
    assert runs.first.stdout == REPLY + "\n"  # only the model's answer
    assert runs.second.returncode == 0, runs.second.stderr
    shown = shown_to_the_user(runs.second.stdout)
    assert shown, runs.second.stdout
    for text in [runs.first.stderr, runs.second.stderr, *shown]:
        assert "memory-pipeline hook" not in text and "Session briefing" not in text
        assert "Session Recovery" not in text


def test_precompact_then_the_recovery_pointer_after_compact(runs, models):
    decisions = [d for d in telemetry(runs) if d.get("session_id") == runs.session_id]
    # PreCompact writes the checkpoint; the compaction's event goes out once the compaction shows
    # (SessionStart with source compact), so an abandoned compaction sends nothing.
    assert any(d["hook"] == "PreCompact" and d.get("decision") == "checkpoint" for d in decisions), decisions
    assert any(d["hook"] == "SessionStart" and d.get("source") == "compact" and d.get("decision") == "emitted"
               for d in decisions), decisions
    later = models.requests[runs.requests_before_second:]
    [after] = [r for r in later if AFTER_COMPACT in r.last_user_text]
    assert "## Session Recovery" in after.text
    assert "staging server" in after.text.split("## Session Recovery", 1)[1]


def test_each_session_end_sends_an_event(runs):
    ended = [d for d in telemetry(runs) if d.get("hook") == "SessionEnd" and d.get("session_id") == runs.session_id]
    assert len(ended) == 2, ended  # one per client process
    events = [json.loads(p.read_text()) for p in (runs.home.workspace / "inbox").glob("*-shutdown-*.json")]
    assert any(e.get("data", {}).get("session_id") == runs.session_id for e in events) or any(
        d.get("decision") == "emitted" for d in ended)


def test_every_hook_exits_0_and_says_how_long_it_took(runs):
    timings = [t for log in runs.debug_logs for t in hook_timings(log)]
    seen = {event for event, _, _ in timings}
    assert {"SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"} <= seen, timings
    assert all(status == 0 for _, status, _ in timings), timings
    print("\nClaude Code's own hook timings (ms): " + ", ".join(
        f"{event} {ms:.0f}" if ms is not None else f"{event} (not logged)" for event, _, ms in timings))
