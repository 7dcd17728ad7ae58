"""MEMORY.md and REVIEW.md against a person's editor: saves in place and by rename, during updates.

The concurrency test runs 100 promotions in this process while another process keeps saving
MEMORY.md with a hand edit, alternating in-place saves (truncate, write in two parts) and
rename-style saves; every hand-edit line must be in the file afterwards, and every promoted line
but one the editor itself wrote over (a save that read the file before the promotion and wrote
after it). Promotions are paced like the editor's saves (a promotion alone takes about a
millisecond), so the two overlap at every phase of a save.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
import time

import pytest

from memory_pipeline.resources.files import file_leases
from memory_pipeline.resources.files.memory_files import MemoryFiles, bad_bytes
from memory_pipeline.resources.files.user_files import replace_if_unchanged, update_user_file
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.review.memory_md import append_to_sections, promoted_ids, promoted_line

EDITOR = textwrap.dedent("""
    import os, random, sys, time
    path, stop, log = sys.argv[1], sys.argv[2], sys.argv[3]
    rng, n = random.Random(5), 0
    while not os.path.exists(stop):
        n += 1
        read_at = time.monotonic_ns()
        with open(path, "rb") as handle:
            text = handle.read()
        edited = text + f"- hand edit {n}\\n".encode()
        if n % 2:  # in place, as many editors save: truncate, then write in two parts
            with open(path, "r+b") as handle:
                handle.truncate(0)
                handle.write(edited[: len(edited) // 2])
                handle.flush()
                time.sleep(0.001)
                handle.write(edited[len(edited) // 2 :])
        else:  # rename style: a new file moved over the old one
            tmp = path + f".editor{n}"
            with open(tmp, "wb") as handle:
                handle.write(edited)
            os.replace(tmp, path)
        with open(log, "a") as handle:
            handle.write(f"{n} {read_at} {time.monotonic_ns()}\\n")
        time.sleep(rng.uniform(0.005, 0.04))  # a save every few ms: far busier than a person
""")


def test_a_hundred_promotions_lose_no_hand_edit_in_either_save_style(tmp_path):
    workspace = Workspace(tmp_path / "ws").create()
    workspace.memory_md.write_text("# MEMORY\n\n## Hard Rules\n\n- Never force-push main.\n\n## Notes\n\n")
    stop, log = tmp_path / "stop", tmp_path / "saved.log"
    editor = subprocess.Popen([sys.executable, "-c", EDITOR, str(workspace.memory_md), str(stop), str(log)])
    files, rng, promoted = MemoryFiles(workspace), random.Random(7), {}
    try:
        for n in range(1, 101):
            time.sleep(rng.uniform(0, 0.03))
            pid, started = f"p-20261121-{n:03d}", time.monotonic_ns()
            files.update_memory(lambda text, pid=pid: text if pid in promoted_ids(text) else append_to_sections(
                text, [("Patterns", promoted_line("2026-11-21", f"promoted rule {pid}", pid))]))  # as promote does
            promoted[pid] = (started, time.monotonic_ns())
    finally:
        stop.write_text("")
        editor.wait(timeout=60)
    final = workspace.memory_md.read_text()
    saves = [tuple(int(field) for field in line.split()) for line in log.read_text().splitlines()]
    assert len(saves) >= 20, "the editor hardly saved; the test proves nothing"
    assert [n for n, _, _ in saves if f"- hand edit {n}\n" not in final] == []
    # A save that read the file before a promotion landed and wrote after it drops that promotion:
    # the editor's own lost update (a real editor warns "changed since reading"), which no writer can
    # prevent. Any other lost promotion is ours.
    missing = [pid for pid in promoted if pid not in promoted_ids(final)]
    assert [pid for pid in missing if not any(read < promoted[pid][1] and saved > promoted[pid][0]
                                              for _, read, saved in saves)] == []
    assert all(final.count(f"<!-- {pid} -->") <= 1 for pid in promoted) and "- Never force-push main.\n" in final


@pytest.fixture(params=["leases", "no leases"])
def leases(request, monkeypatch):
    """Both ways of waiting for an in-place save: read leases, and the settle used where there are none."""
    if request.param == "no leases":
        monkeypatch.setattr(file_leases, "LEASES", False)


def test_a_save_between_read_and_swap_is_merged(tmp_path, leases):
    path = tmp_path / "MEMORY.md"
    path.write_text("# MEMORY\n\n- old\n")

    def change(text: str) -> str:
        if "hand" not in text:  # the editor saves (by rename) while the pipeline computes its change
            (tmp_path / "new").write_text("# MEMORY\n\n- old\n- hand\n")
            os.replace(tmp_path / "new", path)
        return text + "- promoted\n"

    base, after = update_user_file(path, change)
    assert path.read_text() == "# MEMORY\n\n- old\n- hand\n- promoted\n" == after and "- hand" in base


def test_review_md_is_not_written_over_a_save_it_did_not_see(tmp_path, leases):
    path = tmp_path / "REVIEW.md"
    path.write_text("seen\n")
    assert replace_if_unchanged(path, "rendered\n", expected="seen\n") and path.read_text() == "rendered\n"
    path.write_text("the user's save\n")
    assert not replace_if_unchanged(path, "rendered again\n", expected="rendered\n")
    assert path.read_text() == "the user's save\n"


def test_bad_bytes_are_kept_named_and_never_crash(tmp_path):
    workspace = Workspace(tmp_path / "ws").create()
    workspace.memory_md.write_bytes(b"# MEMORY\n\n## Patterns\n\n- caf\xe9 latin-1 line\n- fine\n")
    files = MemoryFiles(workspace)
    assert "- caf\ufffd latin-1 line" in files.read_memory()
    note = bad_bytes(workspace.memory_md)
    assert note is not None and "0xe9 at line 5, column 6" in note and "\n" not in note
    files.update_memory(lambda text: append_to_sections(text, [("Patterns", "- (2026-11-21) new <!-- p-20261121-001 -->")]))
    data = workspace.memory_md.read_bytes()
    assert b"- caf\xe9 latin-1 line\n" in data and b"p-20261121-001" in data  # the byte and its line survive
