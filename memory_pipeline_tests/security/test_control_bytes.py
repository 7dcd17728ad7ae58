"""Control characters from a transcript (issue 47, item 5): a NUL in a message once reached the daily log, and
`secrets check` / `secrets scrub` then took the whole log for binary: its secrets were neither found nor
removed, and scrub said it was done. Control characters are stripped where text enters; a text store with a
stray NUL is still read as text; a file that is skipped is said to be skipped."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.secrets import ScrubReport, check_stores, scrub_files
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.transcripts import parse_transcript
from memory_pipeline.stages.transcripts.control import CONTROL
from memory_pipeline_tests.faults.harness import ingest_here
from memory_pipeline_tests.support.doors import env_settings

SECRET = "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"
KEY = "Tz4Qp8Lm1Xv6Nc3Rb9Wy2Ks7Hd5Fg0Je8Aa1Bb2Cc"


def claude_lines(texts: list[tuple[str, str]], session: str = "ctl-1") -> str:
    lines = []
    for number, (role, text) in enumerate(texts, start=1):
        content = text if role == "user" else [{"type": "text", "text": text}]
        lines.append(json.dumps({
            "type": role, "uuid": f"u{number}", "parentUuid": f"u{number - 1}" if number > 1 else None,
            "sessionId": session, "cwd": "/home/dev/app", "timestamp": f"2026-11-21T10:{number:02d}:00Z",
            "message": {"role": role, "content": content}}))
    return "\n".join(lines) + "\n"


HOSTILE = [
    ("user", "The build\u0000 fails in CI. Use \u001b[31mred\u001b[0m\u0007 output; the bot token "
             f"is in the vault, and my HF token {SECRET}\u0000 is for the model download."),
    ("assistant", "I see the failure\u0000 in the log; decided to pin the\u0008 CUDA image and rerun the job."),
    ("user", "Always pin base images by digest in this repo.\u0000"),
    ("assistant", "Noted: base images are pinned by digest from now on, and the CI job passes again."),
    ("user", "Thanks\u0000, and keep the job's cache between runs."),
    ("assistant", "Done: the cache is kept between runs."),
]


def test_control_characters_are_stripped_when_a_transcript_is_parsed(tmp_path):
    path = tmp_path / "ctl.jsonl"
    path.write_text(claude_lines(HOSTILE))
    transcript = parse_transcript(path)
    texts = [m.text for m in transcript.messages]
    assert not any(CONTROL.search(t) for t in texts), texts
    assert "The build fails in CI" in texts[0] and "red output" in texts[0]


def test_a_stray_nul_byte_in_a_file_is_dropped_not_a_refusal(tmp_path):
    path = tmp_path / "stray.jsonl"
    path.write_bytes(claude_lines(HOSTILE).encode().replace(b"The build", b"The \x00build", 1))
    transcript = parse_transcript(path)
    assert transcript.messages[0].text.startswith("The build fails")


@pytest.mark.slow
def test_no_control_character_reaches_the_daily_log_and_the_check_reads_it(workspaces, tmp_path):
    ws = workspaces.new("offline")
    path = tmp_path / "ctl.jsonl"
    path.write_text(claude_lines(HOSTILE))
    emit_session_event(ws, path, trigger="shutdown", session_id="ctl-1",
                       captured_at=datetime(2026, 11, 21, 10, 10, tzinfo=timezone.utc), settings=env_settings())
    assert ingest_here(ws).success
    logs = list((ws.root / "memory").glob("*.md"))
    assert logs
    for store in [*logs, *(ws.root / "sessions").rglob("*"), *(ws.root / "transcripts").rglob("*.jsonl")]:
        if store.is_file():
            data = store.read_bytes()
            assert b"\x00" not in data and b"\x1b" not in data and SECRET.encode() not in data, store
    assert check_stores([ws.root / "memory", ws.root / "sessions"]).findings == []


def planted(tmp_path: Path) -> Workspace:
    ws = Workspace(tmp_path / "ws").create()
    (ws.root / "memory").mkdir(exist_ok=True)
    log = ws.root / "memory" / "2026-11-21.md"
    log.write_bytes(b"# 2026-11-21\n\n- a line with a stray \x00 NUL\n"
                    + f"- the AWS secret access key is {KEY} in the vault\n".encode())
    (ws.state / "vectors.npy").write_bytes(bytes(range(256)) * 16)  # binary: no reader for it
    return ws


def test_secrets_check_reads_a_daily_log_with_a_nul_as_text(tmp_path):
    ws = planted(tmp_path)
    report = check_stores([ws.root])
    assert [(Path(f.path).name, f.where) for f in report.findings] == [("2026-11-21.md", "4")]
    assert report.binary == [str(ws.state / "vectors.npy")]  # named as not read, never counted as read


def test_secrets_scrub_rewrites_a_daily_log_with_a_nul_and_names_what_it_skipped(tmp_path):
    ws = planted(tmp_path)
    report = ScrubReport()
    scrub_files(ws.root, report)
    log = ws.root / "memory" / "2026-11-21.md"
    assert report.files == [str(log)] and KEY not in log.read_text()
    assert b"stray \x00 NUL" in log.read_bytes()  # the rest of the file is kept as it was
    assert report.binary == [str(ws.state / "vectors.npy")]
    assert check_stores([ws.root]).findings == []
