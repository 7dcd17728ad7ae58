"""`status` reads files: after a day is ingested and checked once, it imports neither dagster nor
qdrant-client nor torch, and still reports the store's points and the pending days."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from memory_pipeline.flows.intake.inbox import RACY_SECONDS
from memory_pipeline_tests.support.paths import SAMPLES

pytestmark = pytest.mark.slow


def cli(*args: str, python_flags: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, *python_flags, "-m", "memory_pipeline.cli", *args], capture_output=True,
                          text=True, env={**os.environ}, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def imported_modules(importtime_stderr: str) -> set[str]:
    return {line.rsplit("|", 1)[-1].strip() for line in importtime_stderr.splitlines()
            if line.startswith("import time:")}


def test_status_answers_from_files_once_the_runs_are_checked(workspace):
    for sample in ("codex-ci-fix.jsonl", "pi-api-refactor.jsonl"):
        cli("emit", "--trigger", "shutdown", "--transcript", str(SAMPLES / sample),
            "--captured-at", "2026-11-21T18:00:00+00:00")
    assert json.loads(cli("ingest", "--json").stdout)["success"]
    # a folder or run written in the last RACY_SECONDS is looked at again by the next check (file
    # clocks are coarse); a user's status comes later than that, so this one does too
    time.sleep(RACY_SECONDS + 0.5)
    first = json.loads(cli("status", "--json").stdout)  # the run finished after ingest's check: looked up
    again = cli("status", "--json", python_flags=("-X", "importtime"))
    second = json.loads(again.stdout)
    modules = imported_modules(again.stderr)
    assert "memory_pipeline.cli.service.status" in modules  # the import log is read
    assert not {"dagster", "qdrant_client", "torch", "sentence_transformers"} & modules
    for status in (first, second):
        assert status["pending_days"] == [] and status["observations"] == 2
        assert sum(status["projects"].values()) == 2 and all(isinstance(n, str) for n in status["projects"])
        qdrant = status["services"]["qdrant"]
        assert qdrant["stores"] == 1 and qdrant["points"] > 0
    assert first["services"]["qdrant"]["points"] == second["services"]["qdrant"]["points"]
