"""`import FOLDER` and links (issue 47, item 10): a `*.jsonl` link inside the folder that leads out of it (to a
credentials file, another user's sessions, `.env`) was followed and its text stored. A link is followed only
to a file inside the folder given; a FIFO, socket or device is never opened (a FIFO would block the import);
each one skipped is named with the reason."""

from __future__ import annotations

import json
import os
import shutil

from memory_pipeline.config import Settings
from memory_pipeline.flows.intake.importer import import_transcripts
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.cli.hook_helpers import hook_env, run_cli
from memory_pipeline_tests.support.paths import fixture_transcript

MARKER = "OUTSIDE-THE-FOLDER-7f3c"


def outside_session(tmp_path):
    """A real transcript outside the folder imported, its words marked."""
    text = fixture_transcript("pi/before-compaction.jsonl").read_text()
    lines = text.splitlines()
    first = json.loads(lines[0])
    first["id"] = "other-user-session"
    outside = tmp_path / "private" / "creds.jsonl"
    outside.parent.mkdir()
    outside.write_text("\n".join([json.dumps(first), *lines[1:]]).replace("the", f"the {MARKER}", 3) + "\n")
    return outside


def folder_with_links(tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    shutil.copy(fixture_transcript("claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"), folder / "real.jsonl")
    (folder / "creds.jsonl").symlink_to(outside_session(tmp_path))
    (folder / "nested").mkdir()
    (folder / "nested" / "same.jsonl").symlink_to(folder / "real.jsonl")  # inside: the same file, once
    os.mkfifo(folder / "pipe.jsonl")
    return folder


def test_import_follows_no_link_out_of_the_folder_and_opens_no_fifo(tmp_path):
    workspace = Workspace(tmp_path / "ws").create()
    folder = folder_with_links(tmp_path)
    report = import_transcripts(workspace, [folder], Settings(workspace=workspace.root))
    reasons = {os.path.basename(item.path): item.reason for item in report.items if item.status == "skipped"}
    assert "outside" in reasons["creds.jsonl"] and str(tmp_path / "private" / "creds.jsonl") in reasons["creds.jsonl"]
    assert "FIFO" in reasons["pipe.jsonl"]
    assert [item.path for item in report.items if item.status == "imported"] == [str((folder / "real.jsonl").resolve())]
    stored = [p for p in workspace.root.rglob("*") if p.is_file()]
    assert stored and not any(MARKER.encode() in p.read_bytes() for p in stored)


def test_the_import_command_says_which_files_it_skipped_and_why(tmp_path):
    workspace = Workspace(tmp_path / "ws").create()
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "creds.jsonl").symlink_to(outside_session(tmp_path))
    os.mkfifo(folder / "pipe.jsonl")
    done = run_cli(["import", str(folder)], hook_env(workspace.root, COLUMNS="500"), timeout=120)
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert f"skipped {folder / 'creds.jsonl'}: a link to" in out and "not followed" in out
    assert f"skipped {folder / 'pipe.jsonl'}: not a regular file (a FIFO)" in out
