"""`trace` on a real pi transcript (../shared): a promoted MEMORY.md line back to the transcript
message it came from, also once the proposal's Redis record is gone (a line promoted long ago)."""

from __future__ import annotations

import json

import dagster as dg
import pytest

from memory_pipeline.config import Settings
from memory_pipeline.defs.resources import build_resources
from memory_pipeline.flows.intake.importer import import_transcripts
from memory_pipeline.flows.observe import collect_sessions, observe_day
from memory_pipeline.main import main
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.llm import LLMClient, default_offline_provider
from memory_pipeline.resources.redis.proposals import ProposalStore
from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis
from memory_pipeline.stages.transcripts import parse_transcript
from memory_pipeline_tests.support.dagster_defs import assets
from memory_pipeline_tests.support.paths import fixture_transcript
from memory_pipeline_tests.support.doors import env_settings, redis_limits

pytestmark = pytest.mark.slow


def trace_json(capsys, *target):
    code = main(["trace", *target, "--json"])
    assert code == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def promoted(workspace, monkeypatch, capsys):
    """The pi fixture imported, observed and reflected (real Dagster run), one proposal approved."""
    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    [day] = import_transcripts(workspace, [fixture_transcript("pi/before-compaction.jsonl")], Settings.from_env()).days
    collect_sessions(workspace, day)
    prompt = load_prompt("observer")
    observe_day(workspace, day, llm=LLMClient(default_offline_provider(), None), prompt=prompt,
                model="offline-extractive-1", redis_store=None, settings=env_settings())
    result = dg.materialize(assets("reflections", "proposals", "memory_md"), partition_key=day,
                            resources=build_resources(Settings.from_env()))
    assert result.success
    store = ProposalStore(RedisStore(connect_redis(None, workspace.state, *redis_limits())))
    chosen = next(p for p in store.pending() if p.source_fact_ids)
    assert main(["review", "approve", chosen.id]) == 0
    capsys.readouterr()
    return workspace, store, chosen, day


def assert_reaches_the_transcript(workspace, trace, day):
    [observation] = trace["observations"]
    assert observation["date"] == day and observation["facts"]
    assert observation["prompt_sha"].startswith(load_prompt("observer").sha256[:12])
    assert observation["model"] == "offline-extractive-1"
    snapshot = workspace.resolve_inside(observation["event"]["transcript"])
    messages = {m.id: m for m in parse_transcript(snapshot).messages}
    assert observation["messages"]
    for cited in observation["messages"]:
        assert cited["id"] in messages and cited["timestamp"]
        assert cited["quote"][:40].rstrip("…") in " ".join(messages[cited["id"]].text.split())
    cited_ids = {m["id"] for m in observation["messages"]}
    assert cited_ids == {mid for f in observation["facts"] for mid in f["source_message_ids"]}


def test_trace_follows_a_promoted_line_to_the_transcript_message(promoted, capsys):
    workspace, store, chosen, day = promoted
    lines = workspace.memory_md.read_text().splitlines()
    number = next(n for n, line in enumerate(lines, start=1) if chosen.id in line)
    by_number = trace_json(capsys, str(number))
    assert by_number["line"]["proposal_id"] == chosen.id
    proposal = by_number["proposal"]
    assert proposal["status"] == "approved" and "review command" in proposal["decided_by"]
    assert any(f"approved `{chosen.id}`" in entry for entry in proposal["history"])
    assert by_number["reflection"]["day"] == day and by_number["reflection"]["matched"] == "same text"
    assert_reaches_the_transcript(workspace, by_number, day)
    assert by_number["missing"] == []
    by_text = trace_json(capsys, *chosen.text.split()[:6])
    assert by_text["proposal"]["id"] == chosen.id
    assert main(["trace", chosen.id]) == 0
    printed = capsys.readouterr().out
    assert f"proposal {chosen.id}" in printed and "> [" in printed and "not found" not in printed


def test_a_line_whose_proposal_record_expired_is_still_traced(promoted, capsys):
    workspace, store, chosen, day = promoted
    store.store.client.delete(store.store.proposal_key(chosen.id))  # what the 30-day TTL does
    trace = trace_json(capsys, chosen.id)
    assert trace["proposal"]["status"] == "approved" and "daily log" in trace["proposal"]["found_in"]
    assert trace["reflection"]["matched"] == "same text"
    assert_reaches_the_transcript(workspace, trace, day)
    assert any("Redis record" in item for item in trace["missing"])


def test_a_fact_id_is_traced_to_its_message_and_the_proposals_citing_it(promoted, capsys):
    workspace, store, chosen, day = promoted
    trace = trace_json(capsys, chosen.source_fact_ids[0])
    assert [f["id"] for f in trace["observations"][0]["facts"]] == [chosen.source_fact_ids[0]]
    assert chosen.id in {c["id"] for c in trace["cited_by"]}
    assert main(["trace", "no such line in memory"]) == 2


def test_a_recall_message_hit_and_a_hand_written_line(promoted, capsys):
    from memory_pipeline.resources.files.inbox import Inbox
    from memory_pipeline.resources.files.observation_files import load_session
    from memory_pipeline.stages.index.message_docs import message_documents

    workspace, store, chosen, day = promoted
    [event] = Inbox(workspace).accepted(day)
    docs = message_documents(load_session(workspace, day, event), day=day, session_id=event.data.session_id)
    hit = trace_json(capsys, docs[3].id)
    [link] = hit["observations"]
    assert [m["id"] for m in link["messages"]] == docs[3].payload["source_message_ids"]
    assert link["event"]["session_id"] == event.data.session_id and "raw message hit" in hit["notes"][0]
    workspace.memory_md.write_text(workspace.memory_md.read_text() + "- my own note\n")
    number = len(workspace.memory_md.read_text().splitlines())
    hand = trace_json(capsys, str(number))
    assert hand["proposal"] is None and "written by hand" in hand["missing"][0]


def test_a_message_hit_is_found_from_its_indexed_day_not_by_reading_every_session(workspace, monkeypatch, capsys):
    import memory_pipeline.flows.trace as trace_flow
    from memory_pipeline.resources.files.inbox import Inbox
    from memory_pipeline.resources.files.observation_files import load_session
    from memory_pipeline.stages.index.message_docs import message_documents

    monkeypatch.setenv("MEMORY_LLM_PROVIDER", "offline")
    codex = "codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"
    sessions = [fixture_transcript(p) for p in ("pi/before-compaction.jsonl", "claude-code/tool_heavy.jsonl", codex)]
    assert main(["import", *map(str, sessions)]) == 0 and main(["ingest"]) == 0
    inbox = Inbox(workspace)
    oldest = inbox.accepted_days()[0]  # read last by a scan that starts from the newest day
    [event] = inbox.accepted(oldest)
    docs = message_documents(load_session(workspace, oldest, event), day=oldest, session_id=event.data.session_id)
    read = []
    monkeypatch.setattr(trace_flow, "load_session", lambda ws, day, ev: read.append(day) or load_session(ws, day, ev))
    capsys.readouterr()
    hit = trace_json(capsys, docs[3].id)
    assert [m["id"] for m in hit["observations"][0]["messages"]] == docs[3].payload["source_message_ids"]
    assert set(read) == {oldest}  # its one session, found from the point's day and session in the index
    main(["service", "stop"])
