"""Parsing the shared real transcripts and the bundled samples."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memory_pipeline.stages.transcripts import (
    detect_format,
    messages_since_last_compaction,
    parse_transcript,
    serialize_transcript,
)
from memory_pipeline.stages.transcripts.claude_code import ANSWER_SUFFIX, question_text
from memory_pipeline_tests.support.paths import PROJECT_ROOT, fixture_transcript

CLAUDE_MAIN = "claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
CLAUDE_SUBAGENT = "claude-code/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl"
CODEX = "codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"
SAMPLES = PROJECT_ROOT / "memory_pipeline" / "samples"


def raw_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_claude_code_main_session_merges_assistant_lines_and_finds_the_compaction() -> None:
    path = fixture_transcript(CLAUDE_MAIN)
    lines = raw_lines(path)
    transcript = parse_transcript(path)

    assert transcript.format == "claude-code"
    assert transcript.session_id == "4d5611e5-241a-462a-8d15-5122611a9569"
    assert transcript.cwd == "/home/USER/projects/spotter-worktrees/spotter-dov"
    main_assistant_lines = [x for x in lines if x.get("type") == "assistant" and not x.get("isSidechain")]
    assistants = [m for m in transcript.messages if m.role == "assistant"]
    assert len(assistants) < len(main_assistant_lines)
    assert len(assistants) == len({x["message"]["id"] for x in main_assistant_lines})

    uuids = {x.get("uuid") for x in lines}
    assert all(m.id.removesuffix(ANSWER_SUFFIX) in uuids for m in transcript.messages)
    # the one AskUserQuestion answer: a user message after its tool result (stages/transcripts/claude_code.py)
    assert [m.text for m in transcript.messages if m.id.endswith(ANSWER_SUFFIX)] == ["main was clean; fix the issues"]
    skipped = {x["uuid"] for x in lines if x.get("type") in ("progress", "system") and x.get("subtype") != "compact_boundary"}
    assert not skipped & {m.id for m in transcript.messages}

    summaries = [m for m in transcript.messages if m.is_compaction_summary]
    summary_line = next(x for x in lines if x.get("isCompactSummary"))
    assert [m.id for m in summaries] == [summary_line["uuid"]]
    assert summaries[0].role == "system" and summaries[0].text.startswith("This session is being continued")

    thinking = next(b["thinking"] for x in lines if x.get("type") == "assistant"
                    for b in x["message"]["content"] if b.get("type") == "thinking" and len(b["thinking"]) > 40)
    assert all(thinking[:40] not in m.text for m in transcript.messages)
    assert all(m.context_tokens and m.context_tokens > 0 for m in assistants)

    calls = {c.id for m in transcript.messages for c in m.tool_calls}
    results = [r for m in transcript.messages for r in m.tool_results]
    assert len(calls) == 150 and len(results) == 150
    assert {r.call_id for r in results} == calls
    assert any(p.endswith("transcript_computers.ex") for p in transcript.files_modified)
    assert any(p.endswith("session_live.ex") for p in transcript.files_read)

    window = messages_since_last_compaction(transcript)
    position = transcript.messages.index(summaries[0])
    assert window == transcript.messages[position + 1 :]
    assert 0 < len(window) < len(transcript.messages)


def test_claude_code_assistant_text_blocks_are_concatenated_in_order() -> None:
    path = fixture_transcript(CLAUDE_MAIN)
    lines = raw_lines(path)
    by_id: dict[str, list[str]] = {}
    first_uuid: dict[str, str] = {}
    for x in lines:
        if x.get("type") == "assistant" and not x.get("isSidechain"):
            first_uuid.setdefault(x["message"]["id"], x["uuid"])
            by_id.setdefault(x["message"]["id"], []).extend(
                b["text"].strip() if b.get("type") == "text" else question_text(b["input"])  # the question asked
                for b in x["message"]["content"]
                if (b.get("type") == "text" and b["text"].strip()) or b.get("name") == "AskUserQuestion")
    messages = {m.id: m for m in parse_transcript(path).messages}
    for message_id, texts in by_id.items():
        assert messages[first_uuid[message_id]].text == "\n\n".join(texts)


def test_claude_code_tool_heavy_skips_meta_and_queue_lines() -> None:
    path = fixture_transcript("claude-code/tool_heavy.jsonl")
    transcript = parse_transcript(path)
    texts = "\n".join(m.text for m in transcript.messages)
    assert "local-command-caveat" not in texts
    names = {c.name for m in transcript.messages for c in m.tool_calls}
    assert {"Bash", "Glob", "Read", "WebSearch", "WebFetch"} <= names
    assert transcript.files_read == ["/home/marco/projects/spotter/assets/js/app.js"]
    assert transcript.files_modified == []
    # the /mcp command, its output and two "[Request interrupted by user]" lines are the client's
    assert [m.text for m in transcript.messages if m.role == "user"] == [
        "start phoenix in background",
        "scrolling back in xterm.js still does not work (maybe because outer web catches it)? "
        "websearch xterm.js tmux interactions",
    ]
    assert "command-name" not in texts and "local-command-stdout" not in texts


def test_claude_code_subagent_file_is_read_whole() -> None:
    transcript = parse_transcript(fixture_transcript(CLAUDE_SUBAGENT))
    assert {m.role for m in transcript.messages} == {"user", "assistant"}


@pytest.mark.parametrize("name", ["pi/before-compaction.jsonl", "pi/before-compaction.v3-migrated.jsonl"])
def test_pi_sessions_v1_and_v3(name: str) -> None:
    path = fixture_transcript(name)
    transcript = parse_transcript(path)
    assert transcript.format == "pi"
    assert transcript.session_id == "ffae836b-9420-4060-ac13-7745215f90ff"
    assert transcript.cwd == "/Users/badlogic/workspaces/pi-mono"
    assert transcript.user_message_count == 55
    summaries = [m for m in transcript.messages if m.is_compaction_summary]
    assert len(summaries) == 2 and all(s.text.startswith("# Context Checkpoint") for s in summaries)
    assert messages_since_last_compaction(transcript)[0] == transcript.messages[transcript.messages.index(summaries[1]) + 1]
    bash = [m for m in transcript.messages if m.text.startswith("$ ")]
    assert len(bash) == 3 and all(m.role == "tool" and m.tool_results for m in bash)
    assert any(r.is_error for m in transcript.messages for r in m.tool_results)
    assert all(m.context_tokens for m in transcript.messages if m.role == "assistant")
    assert transcript.files_read[0].endswith("packages/coding-agent/src/main.ts")
    assert transcript.files_modified


def test_pi_ids_are_entry_ids_in_v3_and_line_indexes_in_v1() -> None:
    v1_path, v3_path = fixture_transcript("pi/before-compaction.jsonl"), fixture_transcript("pi/before-compaction.v3-migrated.jsonl")
    v1, v3 = parse_transcript(v1_path), parse_transcript(v3_path)
    v3_ids = {x.get("id") for x in raw_lines(v3_path)}
    assert all(re.fullmatch(r"e\d+", m.id) for m in v1.messages)
    assert all(re.fullmatch(r"[0-9a-f]{8}", m.id) and m.id in v3_ids for m in v3.messages)
    assert [(m.role, m.text) for m in v1.messages] == [(m.role, m.text) for m in v3.messages]
    v1_lines = v1_path.read_text(encoding="utf-8").split("\n")
    first_user = next(m for m in v1.messages if m.role == "user")
    assert json.loads(v1_lines[int(first_user.id[1:])])["message"]["role"] == "user"


def test_codex_rollout_keeps_one_copy_and_no_reasoning() -> None:
    transcript = parse_transcript(fixture_transcript(CODEX))
    assert transcript.format == "codex"
    assert transcript.session_id == "11111111-1111-4111-8111-111111111111"
    assert transcript.cwd == "/workspace/synthetic-project"
    assert [m.text for m in transcript.messages if m.role == "user"] == ["List the synthetic files."]
    assistant_texts = [m.text for m in transcript.messages if m.role == "assistant" and m.text]
    assert assistant_texts == ["The synthetic files are alpha.txt and beta.txt."]
    text = serialize_transcript(transcript.messages).text
    assert "SYNTHETIC_ENCRYPTED" not in text and "I will inspect" not in text and "future_synthetic" not in text
    assert "environment_context" not in text
    assert [c.name for m in transcript.messages for c in m.tool_calls] == ["exec_command", "apply_patch", "mcp__synthetic__lookup"]
    assert [r.text for m in transcript.messages for r in m.tool_results] == ["./alpha.txt\n./beta.txt", "Done!", '{"status":"ok"}']
    assert transcript.files_modified == ["gamma.txt"]
    assert all(re.fullmatch(r"c\d+", m.id) for m in transcript.messages)


@pytest.mark.parametrize(("name", "expected"), [
    (CLAUDE_MAIN, "claude-code"), ("claude-code/tool_heavy.jsonl", "claude-code"),
    ("pi/before-compaction.jsonl", "pi"), ("pi/before-compaction.v3-migrated.jsonl", "pi"), (CODEX, "codex"),
])
def test_detect_format_from_the_first_lines(name: str, expected: str) -> None:
    head = "\n".join(fixture_transcript(name).read_text(encoding="utf-8").split("\n")[:20])
    assert detect_format(head) == expected


def test_detect_format_falls_back_to_text() -> None:
    assert detect_format("[09:15] [User] (m1): hello\n\n[09:16] [Assistant] (m2): hi") == "text"
    assert detect_format('{"kind": "something else", "value": 3}') == "text"


# --- samples ---------------------------------------------------------------------------------

SAMPLE_FORMATS = {
    "claude-code-redis-debugging.jsonl": "claude-code",
    "pi-api-refactor.jsonl": "pi",
    "codex-ci-fix.jsonl": "codex",
}


@pytest.mark.parametrize(("name", "fmt"), sorted(SAMPLE_FORMATS.items()))
def test_samples_parse_with_enough_user_messages(name: str, fmt: str) -> None:
    transcript = parse_transcript(SAMPLES / name)
    assert transcript.format == fmt
    assert transcript.user_message_count >= 6
    assert {m.timestamp.date().isoformat() for m in transcript.messages} <= {"2026-11-20", "2026-11-21"}
    assert transcript.files_modified
    assert transcript.session_id and transcript.cwd


def test_claude_sample_has_one_compaction_and_a_secret_to_redact() -> None:
    transcript = parse_transcript(SAMPLES / "claude-code-redis-debugging.jsonl")
    assert [m.role for m in transcript.messages if m.is_compaction_summary] == ["system"]
    assert transcript.title == "Fix Redis connection pool exhaustion in orders service"
    window = messages_since_last_compaction(transcript)
    assert window[0].text.startswith("After deploying")
    text = "\n".join(m.text for m in transcript.messages)
    assert "sk-ant-api03-" in text and "app:hunter2@db" in text


def test_codex_sample_drops_injected_context_and_duplicates() -> None:
    path = SAMPLES / "codex-ci-fix.jsonl"
    transcript = parse_transcript(path)
    events = [x["payload"]["message"] for x in raw_lines(path) if x["payload"].get("type") == "user_message"]
    assert [m.text for m in transcript.messages if m.role == "user"] == events
    text = serialize_transcript(transcript.messages).text
    assert "<environment_context>" not in text and "AGENTS.md instructions" not in text and "encrypted" not in text
    assert "timeout-minutes: 20" in text
