"""Workspace bytes for one session resumed N times (`memory-pipeline bench snapshots`).

A real Claude Code session (the spotter fixture, 3.2 MB) is written out in N growing steps; after
each step the SessionEnd hook runs as Claude Code runs it (a process, the payload on stdin), as when
a user resumes the session N times. The figures are the bytes under `transcripts/` and under the
whole workspace. `--code` runs the hooks of another checkout (for example the commit before
snapshots stored only new lines), so before and after are measured the same way.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.paths import ROOT as REPO, SHARED
from memory_pipeline.config import child_environment
from memory_pipeline.resources.workspace import folder_bytes

SESSION = SHARED / "fixtures" / "transcripts" / "claude-code" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


def _end_session(code: Path, workspace: Path, transcript: Path, session_id: str) -> float:
    env = child_environment(MEMORY_WORKSPACE=str(workspace), PYTHONPATH=str(code), HF_HUB_OFFLINE="1")
    payload = {"session_id": session_id, "hook_event_name": "SessionEnd", "transcript_path": str(transcript),
               "cwd": str(transcript.parent), "reason": "other"}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "memory_pipeline.cli", "hook", "claude-code"], env=env, cwd=code,
                          input=json.dumps(payload).encode(), capture_output=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode(errors="replace"))
    return time.perf_counter() - started


def bench_resumed_session(resumes: int = 25, code: Path = REPO, session: Path = SESSION) -> dict:
    lines = session.read_text(encoding="utf-8").splitlines(keepends=True)
    with tempfile.TemporaryDirectory(prefix="bench-resumed-") as tmp:
        root = Path(tmp)
        workspace, live = root / "workspace", root / "live" / session.name
        live.parent.mkdir()
        seconds = []
        for step in range(1, resumes + 1):
            live.write_text("".join(lines[: len(lines) * step // resumes]), encoding="utf-8")
            seconds.append(_end_session(code, workspace, live, "resumed-session"))
        seconds.sort()
        return {"code": str(code), "resumes": resumes, "transcript_bytes": live.stat().st_size,
                "events": len(list((workspace / "inbox").glob("*.json"))),
                "transcripts_bytes": folder_bytes(workspace / "transcripts"),
                "workspace_bytes": folder_bytes(workspace),
                "hook_median_s": round(seconds[len(seconds) // 2], 3)}
