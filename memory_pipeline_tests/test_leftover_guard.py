"""The suite's own guard: a run whose tests leave a service process behind fails, stops it, and says
which one just above its closing count (where a CI log's tail shows it)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from memory_pipeline.resources.processes import process_alive

# Popen returns once the child's exec has closed its close-on-exec pipe, before the kernel has set up its
# arguments: for that moment /proc/PID/cmdline reads empty, and a loaded machine can end the test there (a CI
# run's guard found nothing, then the whole run's found it). The test waits until its command line shows.
INNER = textwrap.dedent('''
    import pathlib, subprocess, sys, time

    def test_leaves_a_service_behind(tmp_path):
        # Named like the recall service on its command line, started in the test's folder.
        code = "import time; time.sleep(120)  # memory_pipeline.services.recall_server"
        proc = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, start_new_session=True)
        deadline = time.monotonic() + 30
        while b"recall_server" not in pathlib.Path(f"/proc/{proc.pid}/cmdline").read_bytes():
            assert time.monotonic() < deadline, "the child never showed its command line"
            time.sleep(0.01)
        (tmp_path.parent.parent / "pid").write_text(str(proc.pid))
''')


def _run(folder: Path, basetemp: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "memory_pipeline_tests.support.plugin",
         f"--basetemp={basetemp}", "test_inner.py"],
        cwd=folder, capture_output=True, text=True, timeout=120)


def test_a_run_that_leaves_a_service_behind_fails_and_names_it_last(tmp_path):
    folder = tmp_path / "inner"
    folder.mkdir()
    (folder / "test_inner.py").write_text(INNER)
    (folder / "conftest.py").write_text("")
    basetemp = tmp_path / "base" / "t"
    basetemp.parent.mkdir()
    result = _run(folder, basetemp)
    pid = int((basetemp.parent / "pid").read_text())
    assert result.returncode == 1, result.stdout + result.stderr
    *_, report, item, stats = result.stdout.strip().splitlines()  # just above the closing count
    assert "processes left behind by tests" in report
    assert item.strip().startswith(f"recall-service pid {pid} (")
    assert "test_leaves_a_service_behin" in item
    assert stats.startswith("1 passed")
    assert not process_alive(pid)


def test_a_run_that_stops_what_it_started_passes(tmp_path):
    folder = tmp_path / "inner"
    folder.mkdir()
    (folder / "test_inner.py").write_text(INNER.replace(
        '(tmp_path.parent.parent / "pid")', 'proc.kill(); proc.wait(); (tmp_path.parent.parent / "pid")'))
    (folder / "conftest.py").write_text("")
    basetemp = tmp_path / "base" / "t"
    basetemp.parent.mkdir()
    result = _run(folder, basetemp)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "left behind" not in result.stdout
