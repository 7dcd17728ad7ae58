"""The serializer's exact format, the text parser reading it back, files touched, the compaction window."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from memory_pipeline.models import Message, ToolCall, ToolResult, Transcript
from memory_pipeline.stages.transcripts import (
    files_touched,
    messages_since_last_compaction,
    parse_transcript,
    serialize_transcript,
)
from memory_pipeline_tests.support.paths import PROJECT_ROOT, fixture_transcript

SAMPLES = PROJECT_ROOT / "memory_pipeline" / "samples"


def at(hour: int, minute: int) -> datetime:
    return datetime(2026, 11, 20, hour, minute, 5, tzinfo=UTC)


def conversation() -> list[Message]:
    return [
        Message(id="u-1", role="user", timestamp=at(9, 15), text="Why does the pool leak?\nIt is in cache.py."),
        Message(id="a-1", role="assistant", timestamp=at(9, 16), text="Let me read it.",
                tool_calls=[ToolCall(id="c1", name="Read", input='{"file_path": "/x/y.py"}')]),
        Message(id="r-1", role="tool", timestamp=at(9, 16), tool_results=[ToolResult(call_id="c1", text="x" * 30)]),
        Message(id="a-2", role="assistant", timestamp=at(9, 17)),  # empty: skipped
        Message(id="a-3", role="assistant", timestamp=None,
                tool_calls=[ToolCall(id="c2", name="Bash", input='{"command": "uv run pytest -q"}')]),
        Message(id="s-1", role="system", timestamp=at(9, 40), text="Earlier: found the leak.", is_compaction_summary=True),
        Message(id="u-2", role="user", timestamp=at(9, 41), text="Thanks."),
    ]


def test_serialized_format_is_exact() -> None:
    serialized = serialize_transcript(conversation(), max_tool_chars=10)
    assert serialized.text == (
        "[09:15] [User] (m1): Why does the pool leak?\nIt is in cache.py.\n"
        "\n"
        "[09:16] [Assistant] (m2): Let me read it.\n  → Read(file_path=/x/y.py)\n"
        "\n"
        "[09:16] [Tool] (m3): xxxxxxxxxx\n… [truncated 20 chars]\n"
        "\n"
        "[--:--] [Assistant] (m4):\n  → Bash(command=uv run pytest -q)\n"
        "\n"
        "[09:40] [Summary] (m5): Earlier: found the leak.\n"
        "\n"
        "[09:41] [User] (m6): Thanks."
    )
    assert serialized.refs == {"m1": "u-1", "m2": "a-1", "m3": "r-1", "m4": "a-3", "m5": "s-1", "m6": "u-2"}


def test_without_tools_tool_only_messages_get_no_block_and_no_ref() -> None:
    serialized = serialize_transcript(conversation(), include_tools=False)
    assert "→" not in serialized.text and "[Tool]" not in serialized.text
    assert serialized.refs == {"m1": "u-1", "m2": "a-1", "m3": "s-1", "m4": "u-2"}
    assert "[09:16] [Assistant] (m2): Let me read it.\n\n[09:40] [Summary] (m3):" in serialized.text


def test_times_stay_in_their_own_offset_and_errors_are_marked() -> None:
    tokyo = datetime(2026, 11, 20, 23, 30, tzinfo=timezone(timedelta(hours=9)))
    messages = [
        Message(id="a", role="assistant", timestamp=tokyo, text="ok"),
        Message(id="b", role="tool", timestamp=tokyo, tool_results=[ToolResult(call_id="c", text="boom", is_error=True)]),
        Message(id="c", role="system", text="Model switched."),
    ]
    assert serialize_transcript(messages).text == (
        "[23:30] [Assistant] (m1): ok\n\n[23:30] [Tool] (m2): [error] boom\n\n[--:--] [System] (m3): Model switched."
    )


def test_tool_call_lines_are_one_line_and_short() -> None:
    long_input = '{"file_path": "/a.py", "old_string": "' + "line\\n" * 100 + '"}'
    message = Message(id="a", role="assistant", tool_calls=[ToolCall(id="c", name="Edit", input=long_input)])
    line = serialize_transcript([message]).text.split("\n")[1]
    assert line.startswith("  → Edit(file_path=/a.py, old_string=line ⏎ line")
    assert line.endswith("…)") and len(line) <= len("  → Edit()") + 120


@pytest.mark.parametrize("name", ["claude-code-redis-debugging.jsonl", "pi-api-refactor.jsonl", "codex-ci-fix.jsonl"])
def test_round_trip_through_the_text_parser(name: str) -> None:
    original = parse_transcript(SAMPLES / name)
    serialized = serialize_transcript(original.messages)
    parsed = parse_transcript(serialized.text, format="text")
    kept = [m for m in original.messages if m.id in serialized.refs.values()]
    assert len(parsed.messages) == len(kept)
    for before, after in zip(kept, parsed.messages, strict=True):
        assert after.role == before.role
        assert after.is_compaction_summary == before.is_compaction_summary
        assert after.timestamp.strftime("%H:%M") == before.timestamp.strftime("%H:%M")
        assert after.timestamp.date().isoformat() == "1970-01-01"
        if before.role != "tool":
            assert after.text == before.text.strip()
        assert [c.name for c in after.tool_calls] == [c.name for c in before.tool_calls]
    assert [m.id for m in parsed.messages] == [f"t{i}" for i in range(1, len(kept) + 1)]
    assert serialize_transcript(parsed.messages).text == serialized.text
    assert parsed.files_modified == [p for p in original.files_modified]


def test_round_trip_of_a_real_session_is_a_fixed_point() -> None:
    transcript = parse_transcript(fixture_transcript("claude-code/tool_heavy.jsonl"))
    serialized = serialize_transcript(transcript.messages)
    again = serialize_transcript(parse_transcript(serialized.text, format="text").messages)
    assert again.text == serialized.text


def test_text_parser_reads_other_header_styles() -> None:
    text = (
        "User: first question\nsecond line\n\nAssistant: an answer\n\n"
        "[2026-11-20 09:15] [User]: dated\n[Assistant thinking]: dropped\n[Tool result]: output here"
    )
    transcript = parse_transcript(text, format="text")
    assert [(m.role, m.text or m.tool_results[0].text) for m in transcript.messages] == [
        ("user", "first question\nsecond line"), ("assistant", "an answer"), ("user", "dated"), ("tool", "output here"),
    ]
    assert transcript.messages[2].timestamp == datetime(2026, 11, 20, 9, 15, tzinfo=UTC)


def test_text_without_headers_is_one_user_message_per_paragraph() -> None:
    transcript = parse_transcript("We chose Postgres.\nIt has JSONB.\n\n\nAlso: keep Redis for queues.\n")
    assert [(m.id, m.role, m.text) for m in transcript.messages] == [
        ("t1", "user", "We chose Postgres.\nIt has JSONB."), ("t2", "user", "Also: keep Redis for queues."),
    ]


def test_quoted_headers_inside_a_numbered_block_stay_in_it() -> None:
    text = "[09:00] [User] (m1): read the log\n\n[09:01] [Tool] (m2): [08:00] [User] (m1): an old line\nUser: also old"
    transcript = parse_transcript(text, format="text")
    assert len(transcript.messages) == 2
    assert transcript.messages[1].tool_results[0].text == "[08:00] [User] (m1): an old line\nUser: also old"


def test_files_touched_from_each_tool_family() -> None:
    def call(name: str, arguments: str) -> ToolCall:
        return ToolCall(id=name, name=name, input=arguments)

    messages = [Message(id="a", role="assistant", tool_calls=[
        call("Read", '{"file_path": "/r/one.py"}'),
        call("Glob", '{"pattern": "**/*.py"}'),
        call("Grep", '{"pattern": "x", "path": "/r/grep.py"}'),
        call("Edit", '{"file_path": "/r/one.py", "old_string": "a", "new_string": "b"}'),
        call("MultiEdit", '{"file_path": "/r/two.py", "edits": []}'),
        call("Write", '{"file_path": "/r/three.py", "content": "*** Update File: not/a/patch.py"}'),
        call("NotebookEdit", '{"notebook_path": "/r/n.ipynb", "new_source": "x"}'),
        call("read", '{"path": "/p/a.ts", "offset": 3}'),
        call("read", '{"path": "/r/one.py"}'),
        call("edit", '{"path": "/p/a.ts", "oldText": "x", "newText": "y"}'),
        call("write", '{"path": "/p/b.ts", "content": ""}'),
        call("apply_patch", "*** Update File: src/c.py\n-old\n+new\n*** Add File: src/d.py\n+new"),
        call("shell", '{"command": ["bash", "-lc", "*** Update File: src/e.py"]}'),
        call("Read", "file_path=/r/rendered.py, limit=40"),
    ])]
    read, modified = files_touched(messages)
    assert read == ["/r/one.py", "/p/a.ts", "/r/rendered.py"]
    assert modified == ["/r/one.py", "/r/two.py", "/r/three.py", "/r/n.ipynb", "/p/a.ts", "/p/b.ts", "src/c.py", "src/d.py", "src/e.py"]


def test_window_since_last_compaction() -> None:
    def msg(i: int, summary: bool = False) -> Message:
        return Message(id=str(i), role="system" if summary else "user", text=f"m{i}", is_compaction_summary=summary)

    with_two = Transcript(format="text", session_id="s", messages=[msg(1), msg(2, True), msg(3), msg(4, True), msg(5), msg(6)])
    assert [m.id for m in messages_since_last_compaction(with_two)] == ["5", "6"]
    without = Transcript(format="text", session_id="s", messages=[msg(1), msg(2)])
    assert [m.id for m in messages_since_last_compaction(without)] == ["1", "2"]
    ending = Transcript(format="text", session_id="s", messages=[msg(1), msg(2, True)])
    assert messages_since_last_compaction(ending) == []
