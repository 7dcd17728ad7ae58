"""Read leases against real writer processes: a read waits for an in-place save to close the file,
a writer that opens during the lease waits for it (and the holder is not killed by the lease-break
signal), and a writer that never closes ends the wait with a clear error."""

from __future__ import annotations

import fcntl
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from memory_pipeline.resources.files.file_leases import LEASES, WriterStillOpen, leased, read_when_quiet

pytestmark = pytest.mark.skipif(not LEASES, reason="file leases are Linux only")

SAVER = textwrap.dedent("""
    import os, sys, time
    path, ready, release = sys.argv[1:4]
    with open(path, "r+b") as handle:  # in place: truncated and half written, then held
        handle.truncate(0)
        handle.write(b"first half, ")
        handle.flush()
        open(ready, "w").close()
        while not os.path.exists(release):
            time.sleep(0.005)
        handle.write(b"second half\\n")
""")


def start_saver(tmp_path, path):
    ready, release = tmp_path / "ready", tmp_path / "release"
    saver = subprocess.Popen([sys.executable, "-c", SAVER, str(path), str(ready), str(release)])
    deadline = time.monotonic() + 30
    while not ready.exists():
        assert saver.poll() is None and time.monotonic() < deadline, "the saver did not start"
        time.sleep(0.005)
    return saver, release


def test_a_read_under_the_lease_waits_for_an_in_place_save_to_finish(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_bytes(b"old text\n")
    saver, release = start_saver(tmp_path, path)
    assert path.read_bytes() == b"first half, "  # what a plain read would take for the file now
    threading.Timer(0.2, release.touch).start()  # the save finishes while the read below waits
    with path.open("rb") as handle:
        assert read_when_quiet(handle, 30, path.name) == b"first half, second half\n"
    assert saver.wait(timeout=30) == 0


def test_a_writer_opening_during_the_lease_waits_for_it_and_no_signal_ends_the_holder(tmp_path):
    path = tmp_path / "REVIEW.md"
    path.write_bytes(b"rendered\n")
    opener = "import sys; open(sys.argv[1], 'ab').write(b'appended by the user\\n')"
    with path.open("rb") as handle, leased(handle, 30, path.name) as held:
        assert held
        writer = subprocess.Popen([sys.executable, "-c", opener, str(path)])
        deadline = time.monotonic() + 30
        while fcntl.fcntl(handle.fileno(), fcntl.F_GETLEASE) != fcntl.F_UNLCK:  # the writer's open breaks it
            assert time.monotonic() < deadline, "the writer never opened the file"
            time.sleep(0.005)
        assert path.read_bytes() == b"rendered\n" and writer.poll() is None  # it waits in open()
    assert writer.wait(timeout=30) == 0
    assert path.read_bytes() == b"rendered\nappended by the user\n"


def test_a_writer_that_keeps_the_file_open_ends_the_wait_with_a_clear_error(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_bytes(b"old text\n")
    saver, release = start_saver(tmp_path, path)
    try:
        with path.open("rb") as handle, pytest.raises(WriterStillOpen, match="MEMORY.md has been held open"):
            read_when_quiet(handle, 0.2, path.name)
    finally:
        release.touch()
        saver.wait(timeout=30)
    assert path.read_bytes() == b"first half, second half\n"
