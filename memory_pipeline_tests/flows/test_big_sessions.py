"""Big sessions (issue 47, item 12): a first line over 1 MB quarantined the session, and a transcript over 64 MB
was refused. What can be kept is kept: an over-long line is passed over, a transcript over its limit is read
from its newest part, and what was cut is said in the command's output and the event's record."""

from __future__ import annotations

import json
from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.flows.hooks.transcript import transcript_file
from memory_pipeline.flows.intake.importer import import_transcripts
from memory_pipeline.models import HookPayload
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.transcripts import parse_transcript
from memory_pipeline.stages.transcripts.lines import MAX_LINE_BYTES
from memory_pipeline_tests.cli.hook_helpers import hook_env, run_cli

MB = 1024 * 1024


def line(number: int, role: str, text: str, session: str = "big-1") -> str:
    content = text if role == "user" else [{"type": "text", "text": text}]
    return json.dumps({"type": role, "uuid": f"u{number}", "parentUuid": f"u{number - 1}" if number > 1 else None,
                       "sessionId": session, "cwd": "/home/dev/app", "timestamp": f"2026-11-21T10:{number % 60:02d}:00Z",
                       "message": {"role": role, "content": content}})


def conversation(start: int, count: int = 10) -> list[str]:
    return [line(n, "user" if n % 2 else "assistant", f"message {n}: decided to keep the retry budget at three")
            for n in range(start, start + count)]


def first_line_of(size: int, tmp_path: Path) -> Path:
    """A session whose first user message is a paste of `size` bytes, then an ordinary conversation."""
    path = tmp_path / "first.jsonl"
    path.write_text("\n".join([line(1, "user", "Here is the log:\n" + "x " * (size // 2)), *conversation(2)]) + "\n")
    return path


def test_a_first_line_over_1_mb_is_imported_not_quarantined(tmp_path):
    workspace = Workspace(tmp_path / "ws").create()
    path = first_line_of(int(1.5 * MB), tmp_path)
    [item] = import_transcripts(workspace, [path], Settings(workspace=workspace.root)).items
    assert item.status == "imported", item.reason
    [event] = Inbox(workspace).accepted(item.day)
    transcript = Inbox(workspace).load_transcript(event)
    assert len(transcript.messages) == 11 and transcript.messages[0].text.startswith("Here is the log:")


def test_the_session_end_hook_reads_a_transcript_whose_first_line_is_over_1_mb(tmp_path):
    path = first_line_of(int(1.5 * MB), tmp_path)
    payload = HookPayload(session_id="big-1", transcript_path=str(path), hook_event_name="SessionEnd")
    assert transcript_file(payload) == path


def test_a_line_over_the_line_limit_is_passed_over_and_said(tmp_path):
    path = tmp_path / "long.jsonl"
    huge = line(3, "user", "y" * (MAX_LINE_BYTES + MB))
    path.write_text("\n".join([*conversation(1, 2), huge, *conversation(4)]) + "\n")
    transcript = parse_transcript(path)
    assert [m.id for m in transcript.messages][:2] == ["u1", "u2"] and "u3" not in [m.id for m in transcript.messages]
    assert len(transcript.messages) == 12
    assert transcript.cut == "1 line(s) over 8.0 MB passed over (9.0 MB)"


def test_a_transcript_over_its_limit_is_read_from_its_newest_part(tmp_path):
    path = tmp_path / "grown.jsonl"
    path.write_text("\n".join([*conversation(1, 200), *conversation(201, 20)]) + "\n")
    newest = sum(len(text) + 1 for text in conversation(201, 20))
    transcript = parse_transcript(path, max_bytes=newest + 40)  # the last 20 lines (and a part of one before)
    ids = [m.id for m in transcript.messages]
    assert ids == ["u1", *(f"u{n}" for n in range(201, 221))]  # the first line is kept: a session's header
    assert transcript.cut.startswith("the oldest ") and "not read (over the " in transcript.cut


def test_import_of_a_transcript_over_64_mb_keeps_its_newest_part_and_says_what_was_cut(tmp_path):
    """Eight lines of 8.5 MB (a session that inlined screenshots) and then a conversation: 68 MB in all."""
    path = tmp_path / "huge.jsonl"
    with path.open("w") as handle:
        for number in range(1, 9):
            handle.write(line(number, "user" if number % 2 else "assistant", "z" * int(8.5 * MB)) + "\n")
        handle.write("\n".join(conversation(9, 12)) + "\n")
    assert path.stat().st_size > 64 * MB
    workspace = tmp_path / "ws"
    done = run_cli(["import", str(path), "--json"], hook_env(workspace), timeout=300)
    report = json.loads(done.stdout)
    [item] = report["items"]
    assert done.returncode == 0 and item["status"] == "imported", done.stderr.decode()[-2000:]
    assert item["cut"].startswith("the oldest ") and "line(s) over 8.0 MB passed over" in item["cut"]
    [event] = Inbox(Workspace(workspace)).accepted(item["day"])
    assert event.data.cut == item["cut"]  # the event's record says it too
    assert [m.id for m in Inbox(Workspace(workspace)).load_transcript(event).messages] == [f"u{n}" for n in range(9, 21)]
    plain = run_cli(["import", str(tmp_path / "nothing-new"), str(path)], hook_env(tmp_path / "ws2", COLUMNS="500"),
                    timeout=300)
    assert f"cut {path}: the oldest " in plain.stdout.decode()
