"""Compaction recovery end to end: PreCompact → real ingest (observer, index) → SessionStart(compact).

The module fixture runs the real pipeline once (it loads the embedding model): the PreCompact hook
sees the big Claude Code session as it was when its auto compaction began, the compaction's event
is sent once the compaction is written, and `ingest` observes and indexes that window. The pointers
below must cite what recall finds in that store.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest

from memory_pipeline.config import Settings
from memory_pipeline.flows.hooks.claude_code import compaction_done
from memory_pipeline.resources.files.observation_files import load_observations
from memory_pipeline.models import HookPayload
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.untrusted import one_line
from memory_pipeline.stages.tokens import estimate_tokens
from memory_pipeline_tests.cli.hook_helpers import (
    BIG_SESSION,
    SESSION_ID,
    before_compaction,
    compacted,
    hook_env,
    hook_state,
    payload,
    run_hook,
    telemetry,
    wait_for,
)
from memory_pipeline_tests.support.dagster_defs import definitions
from memory_pipeline_tests.support.paths import fixture_transcript
from memory_pipeline_tests.support.doors import embedded_redis, env_settings, runtime_dir

CLEAN_ENV = ("REDIS_URL", "QDRANT_URL", "ANTHROPIC_API_KEY", "MEMORY_LLM_PROVIDER", "MEMORY_CONTEXT_WINDOW")


@dataclass
class Ingested:
    workspace: Workspace
    env: dict[str, str]
    transcript: Path


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    from memory_pipeline.flows.intake.ingest import ingest
    from memory_pipeline.resources.daemons import recall_service
    from memory_pipeline.resources.redis.embedded_redis import EmbeddedRedis

    root = tmp_path_factory.mktemp("recovery")
    (root / "dagster").mkdir()
    env = hook_env(root / "workspace", DAGSTER_HOME=str(root / "dagster"))
    transcript = before_compaction(root / "session.jsonl")
    done = run_hook(payload("PreCompact", transcript, trigger="auto"), env)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    workspace = Workspace(root / "workspace")
    # the client writes its compaction, then SessionStart(compact) sends the window it summarized
    # (here without the pointer, which the tests below ask for)
    compacted(transcript)
    compaction_done(workspace, HookPayload.model_validate(payload("SessionStart", transcript, source="compact")),
                    datetime.now().astimezone(), Settings(workspace=workspace.root))
    with pytest.MonkeyPatch.context() as patch:
        for name in CLEAN_ENV:
            patch.delenv(name, raising=False)
        patch.setenv("MEMORY_WORKSPACE", str(workspace.root))
        patch.setenv("DAGSTER_HOME", str(root / "dagster"))
        try:
            report = ingest(workspace, definitions(), Settings.from_env())
            assert report.success and report.accepted == 1 and report.days[0].observations == 1
            yield Ingested(workspace, env, transcript)
        finally:
            recall_service.stop_service(workspace, runtime_dir())
            embedded_redis(workspace.state).stop()


def decided(workspace: Path) -> list[dict]:
    """The hooks' decisions, without the checkpoint's indexing (done detached, logged whenever it ends)."""
    return [d for d in telemetry(workspace) if not d["decision"].startswith("checkpoint_")]


def pointer_of(done) -> str:
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)
    assert output["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    return output["hookSpecificOutput"]["additionalContext"]


def memory_lines(pointer: str) -> list[str]:
    return [line[2:] for line in pointer.split("\n") if line.startswith("- ")]


def queries_in(pointer: str) -> list[str]:
    line = next((l for l in pointer.split("\n") if l.startswith("**Deeper context:**")), "")
    return [part.split('"')[1] for part in line.split("`memory-pipeline recall ")[1:]]


def observation_texts(workspace: Workspace) -> set[str]:
    texts = set()
    for day in (p.name for p in (workspace.root / "observations").iterdir()):
        for observation in load_observations(workspace, day):
            for segment in observation.segments:
                texts.update(one_line(f.text) for f in segment.facts)
                if segment.narrative:
                    texts.add(one_line(f"{segment.title}: {segment.narrative}" if segment.title else segment.narrative))
    return texts


def assert_cites_real_memories(pointer: str, ingested: Ingested, session_id: str) -> None:
    cached = [hit for entry in hook_state(ingested.workspace.root, session_id)["recall_cache"] for hit in entry["hits"]]
    lines = memory_lines(pointer)
    assert 1 <= len(lines) <= 3
    facts = observation_texts(ingested.workspace)
    for line in lines:
        assert len(line) <= 150
        said, _, line = line.partition(") ")
        assert said.startswith("(said by ")
        source = next(h for h in cached if one_line(h["text"]).startswith(line.rstrip("…")))
        assert said == f"(said by {'+'.join(source['provenance'])}"
        if source["tier"] == "observations":
            assert one_line(source["text"]) in facts
        else:
            assert source["session_id"] == SESSION_ID


def assert_queries_return_results(pointer: str, ingested: Ingested) -> list[str]:
    from memory_pipeline.flows.recall.client import recall

    queries = queries_in(pointer)
    assert 1 <= len(queries) <= 2
    for query in queries:
        assert recall(ingested.workspace, query, limit=3, record=False, settings=env_settings()), query
    return queries


def test_pointer_after_compaction_cites_real_memories_within_budget(ingested: Ingested):
    done = run_hook(payload("SessionStart", ingested.transcript, source="compact"), ingested.env)
    pointer = pointer_of(done)
    assert pointer.startswith("## Session Recovery\n**Task:** ")
    assert estimate_tokens(pointer) <= 300
    task = pointer.split("\n")[1]
    assert "spotter-dov" in task and len(task) <= len("**Task:** ") + 200  # from the PreCompact checkpoint
    assert "**Modified:** lib/" in pointer  # relative to the session's cwd, most recent first
    assert_cites_real_memories(pointer, ingested, SESSION_ID)
    assert_queries_return_results(pointer, ingested)
    inject = decided(ingested.workspace.root)[-1]
    assert inject["decision"] == "inject" and inject["kind"] == "pointer" and inject["fallback"] is True

    # the cascade: a second compaction seconds later injects nothing
    again = run_hook(payload("SessionStart", ingested.transcript, source="compact"), ingested.env)
    assert again.returncode == 0 and again.stdout == b""
    assert b"rapid-recompaction" in again.stderr
    skipped = decided(ingested.workspace.root)[-1]
    assert skipped["decision"] == "inject_skipped" and skipped["reason"] == "rapid-recompaction"
    assert hook_state(ingested.workspace.root)["compaction_count"] == 2


def test_warm_zone_cache_feeds_the_pointer(ingested: Ingested):
    session = "warm-session"
    full = fixture_transcript(BIG_SESSION)
    prompt = "Check what toggle_debug does in the session live view and fix the transcript renderer"
    env = {**ingested.env, "MEMORY_CONTEXT_WINDOW": "200000"}  # the session ran with 200k (it compacted at 170k)
    done = run_hook(payload("UserPromptSubmit", full, session_id=session, prompt=prompt), env)
    assert done.returncode == 0 and done.stdout == b"", done.stderr
    state = wait_for(lambda: (s := hook_state(ingested.workspace.root, session))["recall_started_at"] is None and s)
    assert state["zone"] == "warm" and any(entry["hits"] for entry in state["recall_cache"])

    pointer = pointer_of(run_hook(payload("SessionStart", full, session_id=session, source="compact"), ingested.env))
    assert estimate_tokens(pointer) <= 300 and "toggle_debug" in pointer
    assert_cites_real_memories(pointer, ingested, session)
    queries = assert_queries_return_results(pointer, ingested)
    assert set(queries) <= {entry["query"] for entry in state["recall_cache"]}  # validated in the warm zone
    inject = [d for d in telemetry(ingested.workspace.root) if d["session_id"] == session][-1]
    assert inject["decision"] == "inject" and inject["fallback"] is False
    assert hook_state(ingested.workspace.root, session)["zone"] == "cold"  # zones restart after a compaction


def test_session_start_prints_the_briefing(ingested: Ingested):
    done = run_hook(payload("SessionStart", None, session_id="new-session", source="startup"), ingested.env)
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("# Session briefing") and len(context) <= 10_000
    assert decided(ingested.workspace.root)[-1]["decision"] == "inject"


def test_briefing_is_cut_to_the_client_limit(tmp_path: Path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text("# Memory\n\n## Hard Rules\n" + "- never skip the tests\n" * 2000)
    done = run_hook(payload("SessionStart", None, session_id="s1", source="resume"), hook_env(workspace))
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert len(context) <= 10_000 and not context.endswith("…")  # built to the limit, not cut at it
    *shown, last = context.rstrip("\n").split("\n")
    assert shown.count("- never skip the tests") > 300 and all(not line.startswith("- ") or line == "- never skip the tests"
                                                                for line in shown)  # whole lines
    assert last.startswith("_Left out to fit the 10,000-character briefing: ") and " lines of MEMORY.md" in last


def test_after_a_compaction_memory_md_comes_back_with_the_pointer(ingested: Ingested):
    """The compaction dropped the briefing: the project's reviewed MEMORY.md lines come back with the
    recovery pointer, within the cap (a MEMORY.md too long for it: whole lines, and a line saying so)."""
    memory_md = ingested.workspace.root / "MEMORY.md"
    kept = memory_md.read_text() if memory_md.exists() else None
    rule = "- (2026-11-01) Never push to main on Fridays"
    many = "".join(f"- (2026-11-02) Reviewed rule {n}: keep the build green before merging\n" for n in range(300))
    try:
        memory_md.write_text(f"# MEMORY\n\n## Hard Rules\n\n{rule} <!-- p-20261101-001 -->\n")
        short = pointer_of(run_hook(payload("SessionStart", ingested.transcript, session_id="memory-back-1",
                                            source="compact"), ingested.env))
        memory_md.write_text(f"# MEMORY\n\n## Hard Rules\n\n{rule}\n{many}")
        long = pointer_of(run_hook(payload("SessionStart", ingested.transcript, session_id="memory-back-2",
                                           source="compact"), ingested.env))
    finally:
        memory_md.write_text(kept) if kept is not None else memory_md.unlink()
    for context in (short, long):
        assert context.startswith("## Session Recovery\n**Task:** ") and len(context) <= 10_000
        assert "## MEMORY.md (reviewed: the standing guidance this session started with)" in context
        assert rule in context.split("\n") and "<!--" not in context
        assert context.count("```") % 2 == 0
    assert "Left out" not in short
    last = long.rstrip("\n").split("\n")[-1]
    assert last.startswith("_Left out to fit the 10,000-character context: ") and " lines of MEMORY.md" in last
    assert "Reviewed rule 0: keep the build green before merging" in long
