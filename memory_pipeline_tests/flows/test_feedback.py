"""Echo/fizzle end to end: the hooks record what they gave, Stop queues the answer, judging moves
the scores (+0.1 used, −0.05 ignored), recall ranks by them; bad Stop input never breaks the hook."""

from __future__ import annotations

import json

import numpy as np
import pytest

from memory_pipeline.flows.feedback import process_feedback
from memory_pipeline.flows.hooks.claude_code import run_claude_code_hook
from memory_pipeline.models import HookPayload
from memory_pipeline.resources.embedding.embedder import get_embedder
from memory_pipeline.resources.files.feedback import FeedbackFiles
from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis
from memory_pipeline.stages.feedback.echo import Injected, answer_passages, answer_tokens, judge
from memory_pipeline_tests.support.paths import FIXTURES, fixture_transcript
from memory_pipeline_tests.support.doors import redis_limits, env_settings

pytestmark = pytest.mark.slow

MEMORY = """# MEMORY

## Hard Rules

- (2026-11-20) In this repo always use uv, never pip. <!-- p-20261120-001 -->
- (2026-11-20) Staging Redis allows 128 clients; create the pool once and share it. <!-- p-20261120-002 -->
"""


def hook(workspace, event: str, **fields):
    payload = HookPayload(session_id="s-echo", hook_event_name=event, **fields)
    return run_claude_code_hook(workspace, payload, settings=env_settings())


def test_a_used_memory_gains_and_an_ignored_one_loses(workspace):
    workspace.memory_md.write_text(MEMORY)
    assert hook(workspace, "SessionStart", source="startup").output is not None
    given = FeedbackFiles(workspace).injected("s-echo")
    assert [g["id"] for g in given] == ["p-20261120-001", "p-20261120-002"]

    hook(workspace, "Stop", last_assistant_message="Installed it with `uv add httpx`, as this repo uses uv.")
    redis = RedisStore(connect_redis(None, workspace.state, *redis_limits()))
    report = process_feedback(workspace, redis, get_embedder())
    assert report.used == ["p-20261120-001"] and report.ignored == []  # the other may still be used
    transcript = fixture_transcript("claude-code/tool_heavy.jsonl")
    hook(workspace, "SessionEnd", transcript_path=str(transcript), reason="exit")
    report = process_feedback(workspace, redis, get_embedder())
    assert report.ignored == ["p-20261120-002"]
    assert redis.feedback() == {"p-20261120-001": 0.1, "p-20261120-002": -0.05}
    verdicts = (workspace.state_path("feedback") / "verdicts.jsonl").read_text().splitlines()
    assert [json.loads(v)["verdict"] for v in verdicts] == ["used", "ignored"]


def test_stop_without_a_message_reads_the_transcript_and_a_huge_answer_is_cut(workspace):
    workspace.memory_md.write_text(MEMORY)
    hook(workspace, "SessionStart", source="startup")
    transcript = fixture_transcript("claude-code/tool_heavy.jsonl")
    assert hook(workspace, "Stop", transcript_path=str(transcript)).note is None
    assert hook(workspace, "Stop").note.startswith("no answer to judge")  # nothing to read: a note, no error
    hook(workspace, "Stop", last_assistant_message="uv " * 400_000)  # 1.2 MB
    queued = [json.loads(p.read_text()) for p in FeedbackFiles(workspace).queued()]
    assert len(queued) == 2 and all(len(q["answer"]) <= 64_000 for q in queued)
    report = process_feedback(workspace, RedisStore(connect_redis(None, workspace.state, *redis_limits())), get_embedder())
    assert report.answers == 2 and FeedbackFiles(workspace).queued() == []


def test_no_memory_given_means_nothing_is_queued(workspace):
    assert hook(workspace, "Stop", last_assistant_message="done").output is None
    assert FeedbackFiles(workspace).queued() == []


def test_the_thresholds_on_the_labelled_set():
    cases = json.loads((FIXTURES / "labels" / "echo.json").read_text())["cases"]
    embedder = get_embedder()
    verdicts = []
    for case in cases:
        vectors = np.asarray(embedder.encode([case["memory"], *answer_passages(case["answer"])]))
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        cosine = float((vectors[0] @ vectors[1:].T).max())
        verdicts.append(judge(Injected("m", case["memory"]), answer_tokens(case["answer"]), cosine).used)
    labels = [c["used"] for c in cases]
    tp = sum(v and label for v, label in zip(verdicts, labels))
    precision, recall = tp / max(sum(verdicts), 1), tp / sum(labels)
    print(f"echo/fizzle on {len(cases)} labelled answers: precision {precision:.2f}, recall {recall:.2f}")
    assert precision == 1.0 and recall >= 0.9
