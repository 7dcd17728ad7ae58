"""Running the pipeline for the fault suite: inputs, workspaces, CLI subprocesses, kill -9.

Every fault test builds the same input in two workspaces (emit is deterministic for a given
transcript and capture time), breaks one run, re-runs it, and compares it with a clean run.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from benchmarks.synthetic import write_sessions
from memory_pipeline.config import Settings
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.support.doors import embedded_redis, runtime_dir, env_settings

DAYS = ("2026-11-18", "2026-11-19")
CLI = [sys.executable, "-m", "memory_pipeline.cli"]
CLEARED = ("REDIS_URL", "QDRANT_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "MEMORY_LLM_PROVIDER",
           "MEMORY_FAULT_PAUSE", "MEMORY_FAULT_FLAG", "MEMORY_FAULT_DISK_FULL", "MEMORY_FAULT_PAUSE_SECONDS")
BASE_ENV: dict[str, str] = {}  # set once per test session (conftest): the fast embedding model


def fast_model_folder() -> Path:
    """Where the one-layer model is kept between test sessions: beside the ONNX exports, in the model
    cache, named by the sentence-transformers version that saves it (its export is then made once
    per machine, not once per session)."""
    from importlib.metadata import version

    from memory_pipeline.resources.embedding.onnx_export import cache_folder

    return cache_folder(Settings.from_env().model_cache) / f"test-minilm-1-layer-st{version('sentence-transformers')}"


def build_fast_model(target: Path) -> Path:
    """all-MiniLM-L6-v2 cut to one layer and 64 tokens: a real sentence-transformers model with
    the same 384 dimensions, ~5x faster; faults do not depend on embedding quality. Saved once
    into `target` (a temporary folder renamed into place: a second worker keeps the first one's)."""
    if not (target / "modules.json").exists():
        from memory_pipeline.resources.embedding.embedder import get_embedder

        model = get_embedder("all-MiniLM-L6-v2").model
        full = model[0].auto_model.encoder.layer
        model[0].auto_model.encoder.layer = full[:1]
        model[0].auto_model.config.num_hidden_layers = 1
        length, model.max_seq_length = model.max_seq_length, 64
        partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        try:
            model.save(str(partial))
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.rename(partial, target)
            except OSError:
                if not (target / "modules.json").exists():
                    raise
        finally:
            model[0].auto_model.encoder.layer = full
            model[0].auto_model.config.num_hidden_layers = len(full)
            model.max_seq_length = length
            shutil.rmtree(partial, ignore_errors=True)
    return target


def write_inputs(folder: Path, per_day: int, turns: int = 3, seed: int = 11) -> dict[str, list[Path]]:
    """Synthetic Claude Code transcripts, `per_day` for each day of DAYS."""
    return {day: write_sessions(folder / day, per_day, datetime.fromisoformat(day), seed=seed + n, turns=turns)
            for n, day in enumerate(DAYS)}


def emit_inputs(ws: Workspace, inputs: dict[str, list[Path]], trigger: str = "compaction") -> list[Path]:
    """Emit every transcript as an event (compaction: no minimum length) captured on its day."""
    files = []
    for day, paths in inputs.items():
        start = datetime.fromisoformat(day).replace(hour=18, tzinfo=timezone.utc)
        for n, path in enumerate(paths):
            result = emit_session_event(ws, path, trigger=trigger, captured_at=start + timedelta(minutes=n), settings=env_settings())
            files.append(result.path)
    return files


class Workspaces:
    """Fresh workspaces (each with its own Dagster home); their redis-servers stop at teardown."""

    def __init__(self, root: Path):
        self.root = root
        self.made: list[Workspace] = []

    def new(self, name: str) -> Workspace:
        ws = Workspace(self.root / name / "ws").create()
        (self.root / name / "dagster").mkdir(exist_ok=True)
        self.made.append(ws)
        return ws

    def stop_all(self) -> None:
        from memory_pipeline.resources.daemons.services import stop_workspace_services

        for ws in self.made:  # the recall service a test started too, not only Redis
            stop_workspace_services(ws, runtime_dir())
            embedded_redis(ws.state).stop()


def dagster_home(ws: Workspace) -> Path:
    return ws.root.parent / "dagster"


def cli_env(ws: Workspace, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env.update(MEMORY_WORKSPACE=str(ws.root), DAGSTER_HOME=str(dagster_home(ws)), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false", MEMORY_REDIS_RETRY_SECONDS="0")
    env.update(BASE_ENV)
    env.update(extra)
    return env


def run_cli(ws: Workspace, *args: str, timeout: float = 180, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], env=cli_env(ws, **extra), capture_output=True, text=True, timeout=timeout)


def start_cli(ws: Workspace, *args: str, **extra: str) -> subprocess.Popen:
    return subprocess.Popen([*CLI, *args], env=cli_env(ws, **extra), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for_file(path: Path, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"process exited ({proc.returncode}) before {path.name} appeared:\n{out}\n{err}")
        if time.monotonic() > deadline:
            kill9(proc)
            pytest.fail(f"{path.name} did not appear within {timeout}s")
        time.sleep(0.05)


def kill9(proc: subprocess.Popen) -> None:
    """SIGKILL this one process (its redis-server runs in its own session and survives)."""
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)


def pause_env(point: str, flag: Path, seconds: float | None = None) -> dict[str, str]:
    env = {"MEMORY_FAULT_PAUSE": point, "MEMORY_FAULT_FLAG": str(flag)}
    if seconds is not None:
        env["MEMORY_FAULT_PAUSE_SECONDS"] = str(seconds)
    return env


@contextmanager
def using_workspace(ws: Workspace, **extra: str):
    """Point this process at `ws` (MEMORY_WORKSPACE, DAGSTER_HOME, offline services) for in-process runs."""
    with pytest.MonkeyPatch.context() as patch:
        for key in CLEARED:
            patch.delenv(key, raising=False)
        patch.setenv("MEMORY_WORKSPACE", str(ws.root))
        patch.setenv("DAGSTER_HOME", str(dagster_home(ws)))
        patch.setenv("MEMORY_REDIS_RETRY_SECONDS", "0")
        for key, value in {**BASE_ENV, **extra}.items():
            patch.setenv(key, value)
        yield ws


def ingest_here(ws: Workspace, **extra: str):
    """`ingest` in this process (the embedding model stays loaded between runs)."""
    from memory_pipeline.flows.intake.ingest import ingest
    from memory_pipeline_tests.support.dagster_defs import definitions

    with using_workspace(ws, **extra):
        return ingest(ws, definitions(), Settings.from_env())
