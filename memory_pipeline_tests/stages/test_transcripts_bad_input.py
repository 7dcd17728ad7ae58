"""Bad input: always a Transcript or a BadInputError, never anything else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import Transcript
from memory_pipeline.stages.transcripts import parse_transcript
from memory_pipeline_tests.support.paths import PROJECT_ROOT

SAMPLE = PROJECT_ROOT / "memory_pipeline" / "samples" / "claude-code-redis-debugging.jsonl"


def write(tmp_path: Path, content: bytes | str, name: str = "t.jsonl") -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


@pytest.mark.parametrize(("content", "message"), [
    (b"", "is empty"),
    (b"  \n\n\t\n", "is empty"),
    (b'{"type": "user"}\x00\x00\n', "NUL bytes"),
    ("User: hello there".encode("utf-16"), "NUL bytes"),
    (bytes(range(128, 256)) * 40, "not UTF-8"),
    (b'{"type":"progress","uuid":"u1","sessionId":"s"}\n{"type":"progress","uuid":"u2","sessionId":"s"}\n', "no usable"),
    (b'{"type":"session","id":"abc","cwd":"/x"}\n', "no usable"),
    (b'{"kind": "metric", "value": 1}\n{"kind": "metric", "value": 2}\n', "not a Claude Code, pi or Codex"),
])
def test_unusable_files_raise_bad_input(tmp_path: Path, content: bytes, message: str) -> None:
    with pytest.raises(BadInputError, match=message):
        parse_transcript(write(tmp_path, content))


def test_missing_file_directory_and_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="not found"):
        parse_transcript(tmp_path / "nope.jsonl")
    with pytest.raises(BadInputError, match="not a file"):
        parse_transcript(tmp_path)
    with pytest.raises(BadInputError, match="unknown transcript format 'yaml'"):
        parse_transcript(SAMPLE, format="yaml")
    with pytest.raises(BadInputError, match="not found"):
        parse_transcript("bad\x00path")


def test_over_max_bytes(tmp_path: Path) -> None:
    """JSON lines over the limit are read from their newest part (flows/test_big_sessions.py); text is refused."""
    newest = parse_transcript(SAMPLE, max_bytes=1000)
    assert newest.messages and "not read (over the 1,000 bytes limit" in newest.cut
    with pytest.raises(BadInputError, match="over the 10-byte limit"):
        parse_transcript("User: a long enough text\n", max_bytes=10)


def test_unknown_json_shape_is_text_when_asked(tmp_path: Path) -> None:
    transcript = parse_transcript(write(tmp_path, '{"kind": "metric"}\n'), format="text")
    assert [m.text for m in transcript.messages] == ['{"kind": "metric"}']


def test_truncated_last_line_and_wrong_types_are_skipped(tmp_path: Path) -> None:
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    good = parse_transcript(SAMPLE)
    noise = [
        '{"type": "assistant", "uuid": "x1", "message": "oops"}',
        '{"type": "user", "uuid": "x2", "message": {"content": 5}}',
        '{"type": "assistant", "uuid": "x3", "message": {"id": 7, "content": [1, "two", {"type": "tool_use", "input": []}], "usage": {"input_tokens": "many"}}}',
        '{"type": "user", "uuid": 4, "message": {"content": "uuid is a number"}}',
        '[1, 2, 3]', 'not json at all', '{"type": null}', '[' * 5000,
    ]
    damaged = "\n".join(lines[:5] + noise + lines[5:-1] + [lines[-1][: len(lines[-1]) // 2]])
    transcript = parse_transcript(write(tmp_path, damaged))
    assert transcript.format == "claude-code"
    # the cut last line (the closing assistant reply) is lost; of the noise only x3 has a usable tool call
    assert {m.id for m in transcript.messages} == {m.id for m in good.messages[:-1]} | {"x3"}
    assert transcript.messages[-1].id == good.messages[-2].id


@pytest.mark.parametrize("line", [
    '{"type":"session","id":"s","cwd":"/x"}\n{"type":"message","message":["bad"]}\n{"type":"message","id":"ok",'
    '"message":{"role":"user","content":"hello"}}\n{"type":"message","message":{"role":"assistant","content":{"x":1}}}',
    '{"timestamp":"2026-11-21T08:00:00Z","type":"session_meta","payload":"not a dict"}\n'
    '{"timestamp":"bad","type":"response_item","payload":{"type":"message","role":"user","content":"hello"}}\n'
    '{"timestamp":5,"type":"response_item","payload":{"type":"function_call","arguments":{"deep":[1]}}}',
])
def test_pi_and_codex_survive_wrong_types(line: str) -> None:
    transcript = parse_transcript(line + "\n")
    assert "hello" in [m.text for m in transcript.messages]


def test_huge_lines(tmp_path: Path) -> None:
    plain = parse_transcript(write(tmp_path, "word " * 1_000_000, "big.txt"))
    assert len(plain.messages) == 1 and len(plain.messages[0].text) > 4_000_000
    huge = {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user", "content": "x" * 3_000_000}}
    transcript = parse_transcript(write(tmp_path, json.dumps(huge) + "\n"))
    assert transcript.messages[0].text == "x" * 3_000_000


def test_raw_text_source_and_fallback_session_ids(tmp_path: Path) -> None:
    raw = parse_transcript("User: hi\nAssistant: hello\n")
    assert [m.role for m in raw.messages] == ["user", "assistant"] and raw.session_id
    assert parse_transcript("User: hi\nAssistant: hello\n").session_id == raw.session_id
    named = parse_transcript(write(tmp_path, "User: hi\n", "my-session.txt"))
    assert named.session_id == "my-session"
    assert parse_transcript(SAMPLE, session_id="given").session_id == "given"


def _outcome(source: Path | str) -> Transcript | None:
    try:
        return parse_transcript(source)
    except BadInputError:
        return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=400))
def test_any_text_gives_a_transcript_or_bad_input(text: str) -> None:
    outcome = _outcome(text + "\n")
    assert outcome is None or isinstance(outcome, Transcript)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
SHAPED = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "system", "message", "session", "response_item", "compaction"])},
    optional={"uuid": st.text(max_size=5), "message": JSON_VALUES, "payload": JSON_VALUES, "content": JSON_VALUES,
              "id": JSON_VALUES, "timestamp": JSON_VALUES, "summary": JSON_VALUES, "isCompactSummary": JSON_VALUES},
)


@settings(max_examples=150, deadline=None)
@given(st.lists(SHAPED, min_size=1, max_size=6))
def test_any_transcript_shaped_json_gives_a_transcript_or_bad_input(lines: list[dict]) -> None:
    outcome = _outcome("\n".join(json.dumps(line) for line in lines) + "\n")
    assert outcome is None or isinstance(outcome, Transcript)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300))
def test_any_bytes_give_a_transcript_or_bad_input(tmp_path: Path, data: bytes) -> None:
    outcome = _outcome(write(tmp_path, data))
    assert outcome is None or isinstance(outcome, Transcript)
