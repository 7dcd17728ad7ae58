"""An in-place save that holds MEMORY.md open for writing while an update runs: a real writer process.

The save opens the file before the swap and writes only after it (however long it was descheduled):
its text must be merged, also when its write access to the old file comes only after the update's
first look at it. A save caught half written must never become the update's base. A save that keeps
the file open past the wait stops the update, and the file stays the writer's."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from memory_pipeline.errors import ServiceError
from memory_pipeline.resources.files import user_files
from memory_pipeline.resources.files.file_leases import LEASES
from memory_pipeline.resources.files.user_files import update_user_file

pytestmark = pytest.mark.skipif(not LEASES, reason="file leases are Linux only")

ORIGINAL = "# MEMORY\n\n## Hard Rules\n\n- Never force-push main.\n\n## Patterns\n\n- an old rule\n"
WRITER = textwrap.dedent("""
    import os, sys, time
    path, ready, release, half_first = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
    with open(path, "rb") as handle:
        edited = handle.read() + b"- hand edit\\n"
    with open(path, "r+b") as handle:  # in place; held open until released
        if half_first:
            handle.truncate(0)
            handle.write(edited[: len(edited) // 2])
            handle.flush()
        open(ready, "w").close()
        while not os.path.exists(release):
            time.sleep(0.005)
        handle.seek(0)
        handle.truncate(0)
        handle.write(edited)
""")


LATE_WRITER = textwrap.dedent("""
    import os, sys, time
    path, ready, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])

    def wait_until(condition):
        deadline = time.monotonic() + 30
        while not condition():
            assert time.monotonic() < deadline
            time.sleep(0.001)

    def reading_path_back():  # the update has the path open again: its first look is done
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == path:
                    return True
            except OSError:
                pass
        return False

    with open(path, "rb") as handle:
        edited = handle.read() + b"- hand edit\\n"
    old = os.open(path, os.O_RDONLY)  # the old file, kept (a read-only descriptor is no writer)
    first = os.open(path, os.O_RDWR)  # a save under way in it: the update's first look waits
    open(ready, "w").close()
    wait_until(lambda: os.stat(path).st_ino != os.fstat(old).st_ino)  # the swap
    new = os.open(path, os.O_RDWR)  # held: the update's read-back of the path waits for it
    os.close(first)  # the first look now finds the old file as the update read it
    wait_until(reading_path_back)
    late = os.open(f"/proc/self/fd/{old}", os.O_WRONLY | os.O_TRUNC)  # write access to the old file only now
    os.write(late, edited)
    os.close(late)
    os.close(new)
""")


class Writer:
    """The writer process, started and waited for until it holds the file open."""

    def __init__(self, tmp_path, path, half_first: bool = False):
        self.ready, self.release = tmp_path / "ready", tmp_path / "release"
        self.process = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(self.ready),
                                         str(self.release), "1" if half_first else "0"])
        deadline = time.monotonic() + 30
        while not self.ready.exists():
            assert self.process.poll() is None and time.monotonic() < deadline, "the writer did not start"
            time.sleep(0.005)

    def release_after_swap(self, path, inode: int) -> None:
        """Let the writer write only once `path` is another file (the swap happened), 0.1 s later."""
        def run():
            deadline = time.monotonic() + 30
            while os.stat(path).st_ino == inode and time.monotonic() < deadline:
                time.sleep(0.001)
            time.sleep(0.1)
            self.release.touch()
        threading.Thread(target=run, daemon=True).start()

    def finish(self) -> None:
        self.release.touch()
        assert self.process.wait(timeout=30) == 0


def promote(text: str) -> str:
    return text if "promoted rule" in text else text + "- promoted rule\n"


def test_an_in_place_save_open_across_the_swap_and_written_after_it_is_merged(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_text(ORIGINAL)
    writers = []

    def change(text: str) -> str:
        if not writers:  # the editor opens the file after the update read it, before the swap
            writers.append(Writer(tmp_path, path))
            writers[0].release_after_swap(path, os.stat(path).st_ino)
        return promote(text)

    update_user_file(path, change)
    writers[0].finish()
    assert path.read_text() == ORIGINAL + "- hand edit\n- promoted rule\n"


def test_a_save_that_gets_write_access_to_the_old_file_only_after_the_first_look_is_merged(tmp_path):
    """The open() that found the old file before the swap but took write access late: the last
    look at the displaced file, after the read-back, catches it."""
    path = tmp_path / "MEMORY.md"
    path.write_text(ORIGINAL)
    ready, writers = tmp_path / "ready", []

    def change(text: str) -> str:
        if not writers:
            writers.append(subprocess.Popen([sys.executable, "-c", LATE_WRITER, str(path), str(ready),
                                             str(os.getpid())]))
            deadline = time.monotonic() + 30
            while not ready.exists():
                assert writers[0].poll() is None and time.monotonic() < deadline, "the writer did not start"
                time.sleep(0.005)
        return promote(text)

    update_user_file(path, change)
    assert writers[0].wait(timeout=30) == 0
    assert path.read_text() == ORIGINAL + "- hand edit\n- promoted rule\n"


def test_a_save_caught_half_written_is_never_the_base(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_text(ORIGINAL)
    writer = Writer(tmp_path, path, half_first=True)
    assert path.read_text() != ORIGINAL  # the file now holds only the first half of the save
    threading.Timer(0.2, writer.release.touch).start()  # it finishes while the update waits
    base, after = update_user_file(path, promote)
    writer.finish()
    assert base == ORIGINAL + "- hand edit\n" and path.read_text() == after == base + "- promoted rule\n"


def test_a_save_held_open_past_the_wait_stops_the_update_and_keeps_the_writers_file(tmp_path, monkeypatch):
    monkeypatch.setattr(user_files, "WRITER_WAIT_SECONDS", 0.3)
    path = tmp_path / "MEMORY.md"
    path.write_text(ORIGINAL)
    inode, writers = os.stat(path).st_ino, []

    def change(text: str) -> str:
        writers.append(Writer(tmp_path, path))  # opened before the swap, never closed during it
        return promote(text)

    try:
        with pytest.raises(ServiceError, match="held open for writing"):
            update_user_file(path, change)
        assert os.stat(path).st_ino == inode and path.read_text() == ORIGINAL  # put back, not replaced
    finally:
        writers[0].finish()
    assert path.read_text() == ORIGINAL + "- hand edit\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".swap")] == []
