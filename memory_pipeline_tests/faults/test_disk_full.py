"""A full disk: each command says `disk full at PATH` in one line, exits 1, leaves nothing half written.

Injected (MEMORY_FAULT_DISK_FULL) for emit, ingest and reflect writes; a real full filesystem (a 4 MB
tmpfs, where mounting is allowed) for ingest and status; and the classifier on the wrapped errors
a full disk shows up as (sqlite through SQLAlchemy, Dagster's step failure text).
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
from pathlib import Path

import pytest

from memory_pipeline.errors import disk_full_at
from memory_pipeline_tests.faults.harness import run_cli
from memory_pipeline_tests.support.paths import SAMPLES


def one_line_disk_full(done) -> None:
    """Exit 1 and one line on stderr: ours, naming where the disk filled. What Dagster itself prints
    during the run ("Exception while writing logger call to event log: …") goes to the workspace's
    state/dagster-output.log, and the line says where (or that it could not be saved)."""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert len(lines) == 1 and lines[0].startswith("memory-pipeline: disk full at "), done.stderr
    saved = re.search(r"\(Dagster's output: (\S+)\)$", lines[0])
    if saved:
        assert "Exception while writing logger call to event log" in Path(saved[1]).read_text(encoding="utf-8")


def no_temp_files(root) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and p.name.endswith((".tmp", ".swap"))]


def test_emit_with_a_full_disk(workspaces):
    ws = workspaces.new("full-emit")
    done = run_cli(ws, "emit", "--trigger", "shutdown", "--transcript", str(SAMPLES / "codex-ci-fix.jsonl"),
                   MEMORY_FAULT_DISK_FULL="inbox")
    one_line_disk_full(done)
    assert f"{ws.inbox}" in done.stderr and no_temp_files(ws.root) == [] and list(ws.inbox.glob("*.json")) == []


@pytest.mark.slow
def test_ingest_with_a_full_disk_writing_observations(workspaces):
    ws = workspaces.new("full-ingest")
    assert run_cli(ws, "emit", "--trigger", "shutdown", "--transcript", str(SAMPLES / "codex-ci-fix.jsonl"),
                   "--force").returncode == 0
    done = run_cli(ws, "ingest", MEMORY_FAULT_DISK_FULL="observations")
    one_line_disk_full(done)
    assert no_temp_files(ws.root) == [] and not list(ws.root.glob("observations/*/*.json"))


@pytest.mark.parametrize("error", [
    OSError(28, "No space left on device", "/ws/inbox/x.json"),
    sqlite3.OperationalError("database or disk is full"),
    RuntimeError("step observations: OSError: [Errno 28] No space left on device: '/ws/state/x'"),
])
def test_a_full_disk_is_recognized_however_it_is_wrapped(error):
    try:
        try:
            raise error
        except Exception as inner:
            raise RuntimeError("(sqlite3.OperationalError) wrapper") from inner
    except RuntimeError as outer:
        where = disk_full_at(outer, default="/ws")
    assert where in ("/ws/inbox/x.json", "/ws")
    assert disk_full_at(ValueError("an ordinary failure")) is None


@pytest.fixture
def tiny_filesystem(tmp_path):
    mount = tmp_path / "tiny"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True, check=False).returncode:
        pytest.skip("mounting a tmpfs is not allowed here")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)


@pytest.mark.slow
def test_status_and_ingest_on_a_really_full_filesystem(tiny_filesystem, workspaces):
    from memory_pipeline.resources.workspace import Workspace

    ws = Workspace(tiny_filesystem / "ws").create()
    workspaces.made.append(ws)
    assert run_cli(ws, "emit", "--trigger", "shutdown", "--transcript", str(SAMPLES / "codex-ci-fix.jsonl"),
                   "--force").returncode == 0
    filler = tiny_filesystem / "filler"
    with filler.open("wb") as handle:  # fill what is left
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError:
            pass
    try:
        for command in (["ingest"], ["status"]):
            done = run_cli(ws, *command)
            if done.returncode != 0:
                one_line_disk_full(done)
        assert no_temp_files(ws.root) == []
    finally:
        filler.unlink()  # so the teardown can stop the workspace's redis-server


def fill(mount, leave_kb: int) -> Path:
    filler = mount / "filler"
    info = os.statvfs(mount)
    want = info.f_bavail * info.f_frsize - leave_kb * 1024
    with filler.open("wb") as handle:
        try:
            while want > 0:
                handle.write(b"\0" * min(65536, want))
                handle.flush()
                want -= 65536
        except OSError:
            pass
    return filler


@pytest.mark.slow
@pytest.mark.parametrize("leave_kb", [150, 1000])
def test_a_disk_filling_during_ingest_ends_in_one_line_and_a_rerun_loses_nothing(tiny_filesystem, workspaces,
                                                                                  leave_kb):
    """With a little room left, sqlite fails writing its journal and says only "disk I/O error"
    (a raw sqlite3.OperationalError traceback from ingest and status before); after space is freed,
    ingest observes every session as a clean run does."""
    from memory_pipeline.resources.workspace import Workspace

    # an Edge shard on tmpfs allocates ~5 MB per payload index (8 of them): 64 MB no longer held one
    subprocess.run(["mount", "-o", "remount,size=128m", str(tiny_filesystem)], check=True)
    ws = Workspace(tiny_filesystem / "ws").create()
    workspaces.made.append(ws)
    for sample in sorted(SAMPLES.glob("*.jsonl")):
        assert run_cli(ws, "emit", "--trigger", "shutdown", "--transcript", str(sample), "--force").returncode == 0
    filler = fill(tiny_filesystem, leave_kb)
    try:
        for command in (["ingest"], ["status"]):
            done = run_cli(ws, *command)
            if done.returncode != 0:
                one_line_disk_full(done)
    finally:
        filler.unlink()
    assert run_cli(ws, "ingest").returncode == 0
    assert no_temp_files(ws.root) == [] and list(ws.inbox.glob("*.json")) == []
    status = run_cli(ws, "status")
    assert status.returncode == 0 and re.search(r"^pending\s+nothing", status.stdout, re.M), status.stdout
    assert "3 events" in status.stdout and "3 observations" in status.stdout  # as a clean run of the 3 samples
