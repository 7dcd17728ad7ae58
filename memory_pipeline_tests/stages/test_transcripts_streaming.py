"""A huge transcript is parsed line by line: outputs as from the whole text, memory bounded by what is kept."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from benchmarks.big_transcript import write_big_transcript
from memory_pipeline.stages.redact import redact_jsonl, redact_jsonl_lines
from memory_pipeline.stages.transcripts import parse, parse_transcript
from memory_pipeline.stages.transcripts.bookkeeping import user_words
from memory_pipeline.stages.transcripts.jsonl import MAX_TOOL_OUTPUT_CHARS
from memory_pipeline_tests.support.paths import fixture_transcript

BIG_SESSION = "claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


@pytest.fixture(scope="module")
def big_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big-session.jsonl"
    write_big_transcript(path, size_mb=4)
    return path


@pytest.mark.parametrize("name", [BIG_SESSION, "claude-code/tool_heavy.jsonl", "codex/"])
def test_streamed_parse_equals_the_whole_text_parse(name: str, monkeypatch) -> None:
    path = fixture_transcript(name)
    if path.is_dir():
        path = next(path.glob("*.jsonl"))
    whole = parse_transcript(path)
    monkeypatch.setattr(parse, "STREAM_OVER_BYTES", 0)
    assert parse_transcript(path) == whole


def test_a_big_transcript_is_parsed_without_holding_the_file(big_file: Path, monkeypatch) -> None:
    size = big_file.stat().st_size
    monkeypatch.setattr(parse, "STREAM_OVER_BYTES", 1024 * 1024)  # 57 MB in production, 4 MB here
    tracemalloc.start()
    try:
        transcript = parse_transcript(big_file)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the whole-text path holds the text, its lines and every decoded line: ~9x the file (71 MB for 8 MB);
    # streamed, the peak is what is kept (messages, tool output cut to 32k chars) plus one line
    assert peak < size, f"parse peaked at {peak / 1e6:.1f} MB for a {size / 1e6:.1f} MB file"
    lines = [json.loads(line) for line in big_file.read_text(encoding="utf-8").splitlines()]
    turns = [line for line in lines if line["type"] in ("user", "assistant") and not line.get("isMeta")]
    ids = [m.id for m in transcript.messages]
    assert len(ids) == len(set(ids))
    assert {line["uuid"] for line in turns if line["type"] == "user"} - set(ids) <= {
        line["uuid"] for line in turns if line["type"] == "user" and not _has_text(line)}
    summaries = sum(1 for line in lines if line.get("isCompactSummary"))
    assert summaries >= 1
    assert sum(m.is_compaction_summary for m in transcript.messages) == summaries
    outputs = [r.text for m in transcript.messages for r in m.tool_results]
    assert max(len(t) for t in outputs) < MAX_TOOL_OUTPUT_CHARS + 100
    assert any(t.endswith("chars]") and "PASSED" in t for t in outputs)  # the big pytest output, cut


def _has_text(line: dict) -> bool:
    """Whether the line holds the user's words (a task notification is the client's)."""
    content = line["message"].get("content")
    return bool(user_words(content)) if isinstance(content, str) else bool(content)


def test_redacting_line_by_line_equals_redacting_the_text() -> None:
    text = fixture_transcript("claude-code/tool_heavy.jsonl").read_text(encoding="utf-8")
    text += '\n{"type":"user","api_key":"Zx81Qw93Lk20Pm47"}\nnot json: API_KEY=abc123def456ghi\n'
    lines = text.splitlines(keepends=True)
    assert "".join(redact_jsonl_lines(lines)) == redact_jsonl(text)
    assert "abc123def456ghi" not in redact_jsonl(text)
