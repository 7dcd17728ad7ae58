"""A byte that is not UTF-8 in MEMORY.md or REVIEW.md: `brief`, `review` and the SessionStart hook
keep working, say where the byte is in one line, and the byte's line is kept."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from memory_pipeline.flows.review.decisions import apply_review
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.cli.hook_helpers import hook_env, run_cli, run_hook
from memory_pipeline_tests.support.review_fixtures import proposal_store, redis_server, redis_store  # noqa: F401

NOW = datetime(2026, 11, 22, 9, 0, tzinfo=timezone.utc)
BAD = [b"\xff", b"\xe9t\xe9", b"\xc3(", b"\xed\xa0\x80", b"\xf0\x28\x8c\xbc"]  # lone, latin-1, cut, surrogate, bad 4-byte


def seeded(tmp_path, bad: bytes) -> Workspace:
    workspace = Workspace(tmp_path / "ws").create()
    workspace.memory_md.write_bytes(b"# MEMORY\n\n## Patterns\n\n- caf" + bad + b" line stays\n- next line\n")
    workspace.review_md.write_bytes(b"# Pending Memory Proposals\n\n## Proposed for: Patterns\n"
                                    b"- [ ] `p-20261121-001` r" + bad + b"sum\xe9 proposal\n")
    return workspace


@pytest.mark.parametrize("bad", BAD, ids=[b.hex() for b in BAD])
def test_brief_and_the_session_start_hook_keep_working(tmp_path, bad):
    workspace = seeded(tmp_path, bad)
    env = hook_env(workspace.root)
    done = run_cli(["brief"], env)
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.decode().splitlines() if line.startswith("note:")]
    assert notes and "MEMORY.md: byte 0x" in notes[0] and "line 5" in notes[0]
    assert "line stays" in done.stdout.decode() and "Traceback" not in done.stderr.decode()
    hook = run_hook({"session_id": "s-1", "hook_event_name": "SessionStart", "source": "startup", "cwd": "/tmp"}, env)
    assert hook.returncode == 0 and "Traceback" not in hook.stderr.decode()
    assert "line stays" in json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert workspace.memory_md.read_bytes().count(bad) >= 1  # nothing rewrote the byte away


def test_review_keeps_working_and_names_the_byte(tmp_path, proposal_store):
    workspace = seeded(tmp_path, b"\xff")
    report = apply_review(workspace, proposal_store, today="2026-11-22", now=NOW)
    assert any("REVIEW.md: byte 0xff at line 4" in m for m in report.messages)
    assert any("MEMORY.md: byte 0xff at line 5" in m for m in report.messages)
    assert b"- caf\xff line stays\n" in workspace.memory_md.read_bytes()
