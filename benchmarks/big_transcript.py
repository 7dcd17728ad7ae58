"""A huge Claude Code transcript for `bench ingest --big-transcript` (deterministic, no network).

One long session made of rounds of a real transcript (the 3.2 MB Claude Code fixture when the
checkout has it, the bundled sample otherwise): every round gets fresh uuids, message ids and
tool-use ids, timestamps spread over one day, and two additions of its own: a pytest run whose
output is a large tool result, and a pasted log in a user turn. The compaction lines of the source
(a `compact_boundary` and its `isCompactSummary` summary) are kept in the first two rounds only.
The file is written line by line; nothing holds more than one source round.
"""

from __future__ import annotations

import json
import random
import re
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the project folder
FIXTURE = "transcripts/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
SOURCES = (
    ROOT / "memory_pipeline_tests" / "fixtures" / FIXTURE,
    ROOT.parent / "shared" / "fixtures" / FIXTURE,
    ROOT / "memory_pipeline" / "samples" / "claude-code-redis-debugging.jsonl",
)
SESSION_ID = "b16b16b1-0000-4000-8000-000000000057"
START = datetime(2026, 11, 2, 0, 30, tzinfo=UTC)
SPAN = timedelta(hours=22)  # the whole session falls on one day
ID_KEYS = {"uuid", "parentUuid", "logicalParentUuid", "messageId", "leafUuid", "sourceToolAssistantUUID",
           "toolUseID", "parentToolUseID", "tool_use_id", "id", "requestId"}
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
COMPACT_ROUNDS = 2
TOOL_OUTPUT_CHARS = 300_000
PASTED_LOG_CHARS = 40_000


def source_transcript() -> Path:
    return next(path for path in SOURCES if path.is_file())


def _fresh_id(value: str, round_: int) -> str:
    if UUID.match(value):
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{round_}:{value}"))
    return f"{value}_r{round_}"


def _renamed(value: object, round_: int) -> object:
    """A copy of a JSON line with every id made unique to this round and the session id fixed."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in ID_KEYS and isinstance(item, str) and item:
                out[key] = _fresh_id(item, round_)
            elif key == "sessionId" and isinstance(item, str):
                out[key] = SESSION_ID
            else:
                out[key] = _renamed(item, round_)
        return out
    if isinstance(value, list):
        return [_renamed(item, round_) for item in value]
    return value


def _is_compaction(line: dict) -> bool:
    return line.get("subtype") == "compact_boundary" or line.get("isCompactSummary") is True


def _test_log(rng: random.Random, chars: int) -> str:
    rows, size, n = [], 0, 0
    while size < chars:
        n += 1
        outcome = "PASSED" if rng.random() > 0.03 else "FAILED"
        row = f"tests/test_module_{rng.randint(1, 80)}.py::test_case_{n} {outcome} [{min(99, n // 40)}%]"
        rows.append(row)
        size += len(row) + 1
    return "\n".join(rows)


def _extras(rng: random.Random, round_: int, base: dict) -> Iterator[dict]:
    """A pytest call with a large output, then a user turn that pastes part of a server log."""
    call_id = f"toolu_bench_{round_:04d}"
    yield base | {"type": "assistant", "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"call:{round_}")), "message": {
        "id": f"msg_bench_{round_:04d}", "role": "assistant", "type": "message",
        "content": [{"type": "text", "text": f"Running the full test suite (pass {round_ + 1}) to check the fix."},
                    {"type": "tool_use", "id": call_id, "name": "Bash",
                     "input": {"command": "uv run pytest -q tests/", "description": "run the tests"}}]}}
    yield base | {"type": "user", "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"result:{round_}")), "message": {
        "role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id,
                                     "content": _test_log(rng, TOOL_OUTPUT_CHARS), "is_error": False}]}}
    log = "\n".join(f"2026-11-02 10:{i % 60:02d}:00 WARN worker-{i % 7} retry {i} after timeout ({rng.random():.4f}s)"
                    for i in range(PASTED_LOG_CHARS // 64))
    yield base | {"type": "user", "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"paste:{round_}")), "message": {
        "role": "user", "content": f"Round {round_ + 1}: the worker still logs these retries, why?\n\n{log}"}}


def _round_lines(source: list[str], round_: int, rng: random.Random) -> Iterator[dict]:
    template: dict = {}
    for raw in source:
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(line, dict) or (_is_compaction(line) and round_ >= COMPACT_ROUNDS):
            continue
        renamed = _renamed(line, round_)
        if line.get("type") == "user" and not template:
            template = {k: renamed[k] for k in ("isSidechain", "userType", "cwd", "sessionId", "version") if k in renamed}
        yield renamed
    yield from _extras(rng, round_, template or {"sessionId": SESSION_ID, "isSidechain": False})


def write_big_transcript(target: Path, size_mb: float = 57.0, seed: int = 19) -> dict:
    """Write a Claude Code transcript of about `size_mb` MB (10^6 bytes) to `target`; returns its figures."""
    source_path = source_transcript()
    source = source_path.read_text(encoding="utf-8").splitlines()
    rng = random.Random(seed)
    limit = int(size_mb * 1_000_000)
    per_round = max(1, len("\n".join(source)) + TOOL_OUTPUT_CHARS + PASTED_LOG_CHARS)
    rounds = max(1, -(-limit // per_round))
    step = SPAN / max(1, rounds * (len(source) + 3))
    written = lines = 0
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8") as out:
        for round_ in range(rounds):
            for line in _round_lines(source, round_, rng):
                if written >= limit:
                    break
                if "timestamp" in line or line.get("type") in ("user", "assistant", "system"):
                    line["timestamp"] = (START + step * lines).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
                text = json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"
                out.write(text)
                written += len(text.encode("utf-8"))
                lines += 1
    return {"path": str(target), "source": str(source_path), "rounds": rounds, "lines": lines,
            "bytes": written, "session_id": SESSION_ID}
