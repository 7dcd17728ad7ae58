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
Besides wall time it prints the hook process's own CPU time (the service's share is not in it):
on a shared machine the wall time moves with the load, the CPU time much less.
"""

from __future__ import annotations

import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

from memory_pipeline import hook_entry
from benchmarks.paths import ROOT
from benchmarks.synthetic import make_session
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
    from memory_pipeline.cli.hooks.install import hook_argv

    found = {"full_cli": [sys.executable, "-m", "memory_pipeline.cli", "hook", "claude-code"],
             "installed": hook_argv()}
    script = Path(sys.executable).parent / "memory-pipeline"
    if script.is_file():
        found["console_script"] = [str(script), "hook", "claude-code"]
    return found


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_call(argv: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall ms, CPU ms of the hook process itself: less sensitive to a busy machine than wall time)."""
    cpu, started = cpu_of_children(), time.perf_counter()
    subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=cwd, timeout=120)
    return (time.perf_counter() - started) * 1000, (cpu_of_children() - cpu) * 1000


def summary(times: list[float], cpu: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered):.0f} ms · p95 {p95:.0f} ms · CPU {statistics.median(cpu):.0f} ms"




def time_event(argv: list[str], event: str, runs: int, files: tuple[Path, Path, Path], env: dict[str, str]) -> str:
    """The client's wait per call; between calls the service finishes the deferred work (as it
    does between a client's turns), so a call does not pay for the one before it."""
    transcript, project, workspace = files
    times, cpu = [], []
    for _ in range(runs):
        wall, used = time_call(argv, payload(event, transcript, project), env, project)
        times.append(wall)
        cpu.append(used)
        hook_entry.service_pid(str(workspace))  # returns once the service has done the call's work
    return summary(times, cpu)


def bench_hooks(runs: int = 20, turns: int = 40) -> dict:
    figures: dict[str, str] = {"runs": f"{runs} calls per event and command"}
    with tempfile.TemporaryDirectory(prefix="mp-bench-hooks-") as tmp:
        root = Path(tmp)
        project, workspace = root / "project", (root / "ws").resolve()
        project.mkdir()
        (workspace / "state").mkdir(parents=True)  # as after a first hook: the service may start
        transcript = root / "session.jsonl"
        start = datetime.now(timezone.utc).replace(microsecond=0)
        transcript.write_text(make_session(random.Random(3), str(uuid.uuid4()), start, turns), encoding="utf-8")
        env = child_environment(MEMORY_WORKSPACE=str(workspace))
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT),
                                                          env.get("PYTHONPATH")]))
        figures["transcript"] = f"{turns} user turns, {transcript.stat().st_size // 1024} KB"
        try:
            for mode, argv in commands().items():
                first, _ = time_call(argv, payload("SessionStart", transcript, project), env, project)
                if mode != "full_cli":
                    figures[f"{mode} first"] = f"{first:.0f} ms (starts the service)"
                    time.sleep(5)  # the service imports the flows
                for event in EVENTS:
                    figures[f"{mode} {event}"] = time_event(argv, event, runs, (transcript, project, workspace), env)
                hook_entry.stop_service(str(workspace))
        finally:
            hook_entry.stop_service(str(workspace))
            # the first hook also started the workspace's Dagster daemon, and a SessionEnd or PreCompact call leaves
            # its index checkpoint running: stopped before the folder goes, or they write into it as it is removed
            subprocess.run([sys.executable, "-m", "memory_pipeline.cli", "service", "stop"], env=env, cwd=project,
                           capture_output=True, check=False, timeout=180)
            settle_children(workspace)
    return figures


def settle_children(workspace: Path, wait_s: float = 60.0) -> None:
    """Wait for the hook calls' background children of this workspace (an index checkpoint) to end."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        found = subprocess.run(["pgrep", "-f", "--", "index-checkpoint"], capture_output=True, text=True, check=False)
        mine = [pid for pid in found.stdout.split() if str(workspace) in _environ_of(pid)]
        if not mine:
            return
        time.sleep(0.5)


def _environ_of(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""
