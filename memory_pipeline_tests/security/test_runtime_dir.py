"""Another local user pre-creating every predictable runtime folder (`memory-pipeline-<uid>`,
`-1` … `-9`) no longer stops a workspace whose socket path is too long: an unguessable private
folder is made and recorded beside the socket's folder, and every process finds the same one.
With no runtime folder to be had at all, each command says so in one line (no traceback).
Before: ingest failed ("no private runtime folder") and status, recall and stop died in tracebacks.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from memory_pipeline.resources.runtime_dir import RECORD, is_private_dir
from memory_pipeline_tests.cli.hook_helpers import hook_env, run_cli
from memory_pipeline_tests.support.doors import embedded_redis

pytestmark = pytest.mark.skipif(os.getuid() != 0, reason="making folders owned by another user needs root")
LONG = ("d" * 60, "e" * 60)  # a workspace path too long for a unix socket


def squatted_base(request) -> Path:
    base = Path(tempfile.mkdtemp(prefix="mp-sq-"))
    request.addfinalizer(lambda: shutil.rmtree(base, ignore_errors=True))
    for suffix in [""] + [f"-{n}" for n in range(1, 10)]:
        taken = base / f"memory-pipeline-{os.getuid()}{suffix}"
        taken.mkdir(mode=0o755)
        os.chown(taken, 65534, 65534)
    return base


def test_all_predictable_folders_taken_a_recorded_private_one_serves_every_process(tmp_path, monkeypatch, request):
    base = squatted_base(request)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(base))
    state = tmp_path.joinpath(*LONG) / "state"
    server = embedded_redis(state)
    chosen = server.socket_path.parent
    assert chosen.parent == base and chosen.name.startswith(f"mp-{os.getuid()}-") and is_private_dir(chosen)
    assert (state / "redis" / RECORD).read_text().strip() == str(chosen)
    assert embedded_redis(state).socket_path == server.socket_path  # a second process agrees
    try:
        assert server.ensure_running() and server.client().ping()
    finally:
        server.stop()
    shutil.rmtree(chosen)  # the recorded folder gone (a reboot cleaned /tmp): a new one is made and recorded
    again = embedded_redis(state).socket_path.parent
    assert again != chosen and is_private_dir(again) and (state / "redis" / RECORD).read_text().strip() == str(again)


def test_commands_with_no_runtime_folder_to_be_had_say_so_in_one_line(tmp_path, request):
    base = squatted_base(request)
    blocked = base / "not-a-folder"
    blocked.write_text("")  # nothing can be made under a file
    env = hook_env(tmp_path.joinpath(*LONG) / "ws", XDG_RUNTIME_DIR=str(blocked))
    for command in (["status"], ["stop"]):
        done = run_cli(command, env, timeout=180)
        err = done.stderr.decode()
        assert done.returncode == 1 and "Traceback" not in err, (command, err)
        assert "no private runtime folder" in err and "XDG_RUNTIME_DIR" in err, (command, err)
    recall = run_cli(["recall", "redis"], env, timeout=180)  # an empty workspace needs no socket to answer
    assert recall.returncode == 0 and b"Traceback" not in recall.stderr and b"no hits" in recall.stdout
