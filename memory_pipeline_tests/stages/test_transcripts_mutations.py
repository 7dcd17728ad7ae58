"""Every supported format, mutated: truncated lines, wrong types, invalid UTF-8, deep nesting,
huge fields. `parse_transcript` returns a Transcript or raises BadInputError, nothing else.

(test_transcripts_bad_input.py covers random text, random bytes and generic JSON shapes; these
start from real files of each format, so the mutations land inside structures the parsers know.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import Transcript
from memory_pipeline.stages.transcripts import parse_transcript
from memory_pipeline_tests.support.paths import SAMPLES, fixture_transcript

TEXT = b"[2026-11-21 10:00] [User]: Fix the flaky test.\n[2026-11-21 10:01] [Assistant]: Looking at it now.\n"
SOURCES = {
    "claude-code": lambda: (SAMPLES / "claude-code-redis-debugging.jsonl").read_bytes(),
    "pi-v3": lambda: (SAMPLES / "pi-api-refactor.jsonl").read_bytes(),
    "pi-v1": lambda: fixture_transcript("pi/before-compaction.jsonl").read_bytes(),
    "codex": lambda: (SAMPLES / "codex-ci-fix.jsonl").read_bytes(),
    "text": lambda: TEXT,
}
FORMATS = {"claude-code": "claude-code", "pi-v3": "pi", "pi-v1": "pi", "codex": "codex", "text": "text"}
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8,
)


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def _set_somewhere(value: object, replacement: object, choice: int) -> object:
    """Replace one nested value (picked by `choice`) of a parsed JSON line."""
    if isinstance(value, dict) and value:
        key = sorted(value)[choice % len(value)]
        inner = value[key]
        value[key] = _set_somewhere(inner, replacement, choice // 7) if choice % 3 and inner else replacement
        return value
    if isinstance(value, list) and value:
        value[choice % len(value)] = _set_somewhere(value[choice % len(value)], replacement, choice // 7)
        return value
    return replacement


@st.composite
def mutations(draw, lines: list[bytes]) -> bytes:
    lines = list(lines)
    i = draw(st.integers(0, len(lines) - 1))
    kind = draw(st.sampled_from(["truncate", "wrong-type", "invalid-utf8", "deep", "deep-field", "huge"]))
    if kind == "truncate":
        lines = lines[:i] + [lines[i][: draw(st.integers(0, max(len(lines[i]) - 1, 0)))]]
    elif kind == "invalid-utf8":
        cut = draw(st.integers(0, len(lines[i])))
        lines[i] = lines[i][:cut] + draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80\x80"])) + lines[i][cut:]
    elif kind == "deep":
        lines[i] = deep(draw(st.sampled_from([50, 5_000, 200_000]))).encode()
    else:
        try:
            parsed = json.loads(lines[i])
        except ValueError:
            parsed = {"text": lines[i].decode("utf-8", "replace")}
        replacement = {
            "wrong-type": lambda: draw(JSON_VALUES),
            "deep-field": lambda: json.loads(deep(500)),
            "huge": lambda: "x" * 3_000_000,
        }[kind]()
        lines[i] = json.dumps(_set_somewhere(parsed, replacement, draw(st.integers(0, 10_000)))).encode()
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_mutated_transcripts_give_a_transcript_or_bad_input(source: str, tmp_path: Path) -> None:
    original = SOURCES[source]()
    lines = [line for line in original.split(b"\n") if line.strip()]
    path = tmp_path / ("session.txt" if source == "text" else "session.jsonl")

    @settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=mutations(lines), auto=st.booleans())
    def check(data: bytes, auto: bool) -> None:
        path.write_bytes(data)
        try:
            outcome = parse_transcript(path, format="auto" if auto else FORMATS[source], session_id="s1")
        except BadInputError as exc:
            assert str(exc)
            return
        assert isinstance(outcome, Transcript)

    check()
