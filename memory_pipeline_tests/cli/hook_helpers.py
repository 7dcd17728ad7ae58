"""Running `memory-pipeline hook claude-code` as Claude Code does: a subprocess, JSON on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from memory_pipeline_tests.support.paths import fixture_transcript

BIG_SESSION = "claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
SESSION_ID = "4d5611e5-241a-462a-8d15-5122611a9569"
SESSION_CWD = "/home/USER/projects/spotter-worktrees/spotter-dov"


def hook_env(workspace: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("REDIS_URL", "QDRANT_URL", "ANTHROPIC_API_KEY", "MEMORY_LLM_PROVIDER", "MEMORY_CONTEXT_WINDOW")}
    env.update({"MEMORY_WORKSPACE": str(workspace), "HF_HUB_OFFLINE": "1", **extra})
    return env


def run_cli(args: list[str], env: dict[str, str], stdin: bytes = b"", timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memory_pipeline.cli", *args], input=stdin, env=env,
                          capture_output=True, timeout=timeout)


def run_hook(payload: dict | bytes, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    stdin = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return run_cli(["hook", "claude-code"], env, stdin, timeout)


def payload(event: str, transcript: Path | str | None, session_id: str = SESSION_ID, **fields) -> dict:
    document = {"session_id": session_id, "hook_event_name": event, "cwd": SESSION_CWD, **fields}
    if transcript is not None:
        document["transcript_path"] = str(transcript)
    return document


def lines_of(relative: str) -> list[str]:
    return fixture_transcript(relative).read_text(encoding="utf-8").splitlines(keepends=True)


def before_compaction(target: Path) -> Path:
    """The big session as it was when its auto compaction began: every line before the boundary."""
    lines = lines_of(BIG_SESSION)
    cut = next(i for i, line in enumerate(lines) if '"compact_boundary"' in line)
    target.write_text("".join(lines[:cut]), encoding="utf-8")
    return target


def compacted(target: Path) -> Path:
    """The big session once its compaction was written: every line up to the compact summary."""
    lines = lines_of(BIG_SESSION)
    cut = next(i for i, line in enumerate(lines) if '"isCompactSummary":true' in line)
    target.write_text("".join(lines[: cut + 1]), encoding="utf-8")
    return target


def inbox_events(workspace: Path) -> list:
    from memory_pipeline.models import SessionEvent

    return [SessionEvent.model_validate_json(p.read_text()) for p in sorted((workspace / "inbox").glob("*.json"))]


def first_user_turns(relative: str, turns: int, target: Path) -> Path:
    """The start of a real session, up to (not including) its user message number `turns + 1`."""
    kept, seen = [], 0
    for line in lines_of(relative):
        record = json.loads(line)
        content = record.get("message", {}).get("content") if isinstance(record.get("message"), dict) else None
        typed = isinstance(content, str) or (isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "text" for b in content))
        if record.get("type") == "user" and typed and not record.get("isMeta"):
            seen += 1
            if seen > turns:
                break
        kept.append(line)
    target.write_text("".join(kept), encoding="utf-8")
    return target


def telemetry(workspace: Path) -> list[dict]:
    path = workspace / "state" / "hooks" / "telemetry.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def hook_state(workspace: Path, session_id: str = SESSION_ID) -> dict:
    return json.loads((workspace / "state" / "hooks" / f"{session_id}.json").read_text(encoding="utf-8"))


def wait_for(condition, timeout: float = 120.0, step: float = 0.2, what: str = "condition"):
    """`condition()`'s first true value, asked every `step` seconds; fails after `timeout` naming `what`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"{what} not met within {timeout:.0f}s")


def all_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []
