"""The Qdrant store held by another process, and a full disk on workspace writes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest

from memory_pipeline.resources.files.observation_files import load_observations
from memory_pipeline.resources.workspace import atomic_write_text
from memory_pipeline_tests.faults.compare import assert_same_state, read_state
from memory_pipeline_tests.faults.harness import DAYS, emit_inputs, ingest_here, using_workspace

pytestmark = pytest.mark.slow

HOLDERS = {
    "memory-pipeline lock": "from memory_pipeline.resources.vectors.edge_store import EdgeStore\n"
                            "store = EdgeStore(Path(sys.argv[1]), dimension=384)\n"
                            "holder = store.session()",
    "raw EdgeShard": "from qdrant_edge import EdgeShard\n"
                     "from memory_pipeline.resources.vectors.edge_store import EdgeStore, shard_config\n"
                     "import contextlib\n"
                     "EdgeStore(Path(sys.argv[1]), dimension=384).ensure_collection()\n"
                     "holder = contextlib.closing(EdgeShard.load(sys.argv[1], shard_config(384)))",
}


def hold(store_path, flag, kind: str) -> subprocess.Popen:
    """A process that opens the store, creates `flag`, and holds it until `flag` is deleted."""
    code = "import sys, time\nfrom pathlib import Path\n" + HOLDERS[kind] + textwrap.dedent("""
        with holder:
            flag = Path(sys.argv[2])
            flag.write_text("held")
            while flag.exists():
                time.sleep(0.05)
        """)
    proc = subprocess.Popen([sys.executable, "-c", code, str(store_path), str(flag)])
    deadline = time.monotonic() + 60
    while not flag.exists():
        assert proc.poll() is None and time.monotonic() < deadline, "the holder did not open the store"
        time.sleep(0.05)
    return proc


@pytest.mark.parametrize("kind", sorted(HOLDERS))
def test_store_locked_by_another_process_fails_clearly_then_completes(kind, workspaces, small_inputs, clean_small,
                                                                      tmp_path):
    ws = workspaces.new("locked")
    emit_inputs(ws, small_inputs)
    flag = tmp_path / "holding.flag"
    shard = ws.state_path("vectors")
    holder = hold(shard, flag, kind)
    try:
        report = ingest_here(ws, MEMORY_QDRANT_LOCK_TIMEOUT="1")
    finally:
        flag.unlink()
        holder.wait(timeout=30)
    assert not report.success
    errors = " ".join(d.error or "" for d in report.days)
    expected = "stayed locked by another process" if kind == "memory-pipeline lock" else "held open by another process"
    assert expected in errors and str(shard) in errors, errors
    assert all(len(load_observations(ws, day)) == 10 for day in DAYS)

    again = ingest_here(ws)
    assert again.success and [d.day for d in again.days] == list(DAYS), again.as_dict()
    with using_workspace(ws):
        assert_same_state(read_state(ws), clean_small)


def test_a_write_past_the_file_size_limit_leaves_the_old_file_and_no_temp_file(tmp_path):
    """A real short write: the kernel refuses bytes past RLIMIT_FSIZE (EFBIG), like a full disk."""
    target = tmp_path / "state" / "notes.md"
    atomic_write_text(target, "old content\n")
    code = textwrap.dedent("""
        import resource, signal, sys
        from pathlib import Path
        from memory_pipeline.resources.workspace import atomic_write_text
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        try:
            atomic_write_text(Path(sys.argv[1]), "new " * 10_000)
        except OSError as exc:
            print("refused", exc.errno)
        """)
    done = subprocess.run([sys.executable, "-c", code, str(target)], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "refused 27", done.stderr  # EFBIG
    assert target.read_text() == "old content\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["notes.md"]


def test_disk_full_on_observation_writes_fails_the_run_then_completes(workspaces, small_inputs, clean_small):
    ws = workspaces.new("disk-full")
    emit_inputs(ws, small_inputs)
    report = ingest_here(ws, MEMORY_FAULT_DISK_FULL="/observations/")
    assert not report.success
    assert all("No space left on device" in (d.error or "") for d in report.days), report.as_dict()
    assert list((ws.root / "observations").rglob("*")) == [p for p in (ws.root / "observations").rglob("*")
                                                              if p.is_dir()]  # no file, no temp file
    again = ingest_here(ws)
    assert again.success, again.as_dict()
    with using_workspace(ws):
        assert_same_state(read_state(ws), clean_small)
