"""`memory-pipeline bench hooks`: what each Claude Code hook call costs the client, per event.

Each hook event is run as Claude Code runs it (a child process, the hook JSON on stdin) against a
synthetic 40-turn session in a temporary workspace, three ways:
- `full_cli`: `python -m memory_pipeline.cli hook claude-code`, the whole CLI per call (what every
  hook cost before the hook service: the console script imported all of it);
- `installed`: the command `install-hooks` writes now (`python -S …/hook_entry.py hook claude-code`),
  answered by the warm hook service;
- `console_script`: the command earlier versions installed (`…/memory-pipeline hook claude-code`),
  which now takes the same door.
Each call gets a fresh session id, so SessionEnd and PreCompact do their whole work every time.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

from memory_pipeline import hook_entry
from memory_pipeline.bench.synthetic import make_session
from memory_pipeline.config import child_environment

EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd")


def payload(event: str, transcript: Path, project: Path) -> bytes:
    fields = {"hook_event_name": event, "session_id": str(uuid.uuid4()), "transcript_path": str(transcript),
              "cwd": str(project)}
    fields.update({"SessionStart": {"source": "startup"}, "UserPromptSubmit": {"prompt": "Run the tests again."},
                   "Stop": {"last_assistant_message": "All tests pass."}, "PreCompact": {"trigger": "manual"},
                   "SessionEnd": {"reason": "other"}}[event])
    return json.dumps(fields).encode("utf-8")


def commands() -> dict[str, list[str]]:
    from memory_pipeline.cli.install_hooks import hook_argv

    found = {"full_cli": [sys.executable, "-m", "memory_pipeline.cli", "hook", "claude-code"],
             "installed": hook_argv()}
    script = Path(sys.executable).parent / "memory-pipeline"
    if script.is_file():
        found["console_script"] = [str(script), "hook", "claude-code"]
    return found


def time_call(argv: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> tuple[float, bytes, bytes]:
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=cwd, timeout=120)
    return (time.perf_counter() - started) * 1000, done.stdout, done.stderr


def summary(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered):.0f} ms, p95 {p95:.0f} ms (n={len(ordered)})"




def time_event(argv: list[str], event: str, runs: int, files: tuple[Path, Path, Path], env: dict[str, str]) -> str:
    """The client's wait per call; between calls the service finishes the deferred work (as it
    does between a client's turns), so a call does not pay for the one before it."""
    transcript, project, workspace = files
    times = []
    for _ in range(runs):
        times.append(time_call(argv, payload(event, transcript, project), env, project)[0])
        hook_entry.service_pid(str(workspace))  # returns once the service has done the call's work
    return summary(times)


def bench_hooks(runs: int = 20, turns: int = 40) -> dict:
    figures: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="mp-bench-hooks-") as tmp:
        root = Path(tmp)
        project, workspace = root / "project", (root / "ws").resolve()
        project.mkdir()
        (workspace / "state").mkdir(parents=True)  # as after a first hook: the service may start
        transcript = root / "session.jsonl"
        start = datetime.now(timezone.utc).replace(microsecond=0)
        transcript.write_text(make_session(random.Random(3), str(uuid.uuid4()), start, turns), encoding="utf-8")
        env = child_environment(drop=("MEMORY_WORKSPACE",), MEMORY_WORKSPACE=str(workspace),
                                PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[2]),
                                                            os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
        figures["transcript"] = f"{turns} user turns, {transcript.stat().st_size // 1024} KB"
        try:
            for mode, argv in commands().items():
                first, _, _ = time_call(argv, payload("SessionStart", transcript, project), env, project)
                if mode != "full_cli":
                    figures[f"{mode} first call"] = f"{first:.0f} ms (no service: the full CLI; starts one)"
                    time.sleep(5)  # the service imports the flows
                for event in EVENTS:
                    figures[f"{mode} {event}"] = time_event(argv, event, runs, (transcript, project, workspace), env)
                hook_entry.stop_service(str(workspace))
        finally:
            hook_entry.stop_service(str(workspace))
    return figures
