"""The message_index asset on the sample transcripts: indexed once, idempotent, in the ingest job."""

from __future__ import annotations

import dagster as dg
import pytest

from memory_pipeline.config import Settings
from memory_pipeline.defs.resources import build_resources
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.intake.inbox import take_inbox
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.files.observation_files import load_session
from memory_pipeline.resources.vectors.stores import workspace_store
from memory_pipeline_tests.support.dagster_defs import assets, definitions
from memory_pipeline_tests.support.paths import SAMPLES
from memory_pipeline_tests.support.doors import env_settings

pytestmark = pytest.mark.slow


def test_message_index_materializes_idempotently(workspace):
    days = {emit_session_event(workspace, path, trigger="shutdown", use_transcript_time=True, settings=env_settings()).event.day
            for path in sorted(SAMPLES.glob("*.jsonl"))}
    take_inbox(workspace, settings=env_settings())
    day = sorted(days)[0]
    assert "message_index" in {n.name for n in definitions().resolve_job_def("ingest_job").nodes}

    first = dg.materialize(assets("sessions", "message_index"), partition_key=day, resources=build_resources(Settings.from_env()))
    store = workspace_store(workspace.state, None, dimension=384)
    stored = store.count({"tier": "messages", "date": day})
    passages = store.count({"tier": "passages", "date": day})
    meta = first.asset_materializations_for_node("message_index")[0].metadata
    assert stored + passages == meta["points"].value == meta["embedded_now"].value and stored > 0
    assert passages == meta["passages"].value > 0  # the windows of the user's longer turns
    turns = {p.id: p for p in store.scroll_all(payload_filter={"tier": "messages", "date": day})}
    for passage in store.scroll_all(payload_filter={"tier": "passages"}):
        turn = turns[passage.payload["passage_of"]].payload
        assert turn["role"] == "user" and passage.text in " ".join(turn["message"].split())
    expected = sum(1 for e in Inbox(workspace).accepted(day) for m in load_session(workspace, day, e).messages
                   if m.role in ("user", "assistant") and m.text.strip() and not m.is_compaction_summary)
    assert stored == expected
    points = list(store.scroll_all(payload_filter={"tier": "messages"}))
    assert all(len(p.payload["source_message_ids"]) == 1 and p.payload["stale"] is False for p in points)
    assert {p.payload["role"] for p in points} == {"user", "assistant"}

    again = dg.materialize(assets("sessions", "message_index"), partition_key=day, resources=build_resources(Settings.from_env()))
    meta = again.asset_materializations_for_node("message_index")[0].metadata
    assert meta["embedded_now"].value == 0 and meta["unchanged"].value == stored + passages
    assert store.count({"tier": "messages", "date": day}) == stored
    assert store.count({"tier": "passages", "date": day}) == passages
    checks = {c.check_name: c.passed for c in again.get_asset_check_evaluations()}
    assert checks == {"index_matches_messages": True}
