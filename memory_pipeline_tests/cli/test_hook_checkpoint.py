"""The hot-zone task checkpoint is searchable (issue 48): a session whose context crosses 60 % is found
by `memory-pipeline recall` from its project folder and by the MCP `search` tool, as one point per
session that the next checkpoint replaces. Real hooks (subprocesses, as Claude Code runs them), the
detached indexer, the real embedding model and store, the recall service and the MCP SDK's client."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memory_pipeline.config import Settings
from memory_pipeline.flows.index.observations import index_day
from memory_pipeline.flows.recall.engine import open_store
from memory_pipeline.resources.daemons.services import stop_workspace_services
from memory_pipeline.resources.embedding.onnx_embedder import embedder_for
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.hooks.checkpoint_doc import checkpoint_id
from memory_pipeline_tests.cli.hook_helpers import (
    BIG_SESSION,
    SESSION_ID,
    before_compaction,
    hook_env,
    hook_state,
    payload,
    run_hook,
    telemetry,
    wait_for,
)
from memory_pipeline_tests.support.doors import runtime_dir
from memory_pipeline_tests.support.mcp_door import door
from memory_pipeline_tests.support.paths import fixture_transcript

pytestmark = pytest.mark.slow
FIRST = "fix the failing transcript renderer tests"
SECOND = "now make the zebra tooltip render the session cost"


def indexed(workspace: Path, times: int) -> list[dict]:
    done = [d for d in telemetry(workspace) if d["decision"] == "checkpoint_indexed"]
    return done if len(done) >= times else []


def recall_json(query: str, env: dict[str, str], folder: Path) -> dict:
    done = subprocess.run([sys.executable, "-m", "memory_pipeline.cli", "recall", query, "--json"], env=env,
                          cwd=folder, capture_output=True, timeout=180)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def stored_checkpoints(workspace: Workspace, settings: Settings) -> list:
    store = open_store(workspace, settings, embedder_for(settings.embedding_model, settings).dimension)
    return list(store.scroll_all(payload_filter={"kind": "checkpoint", "session_id": SESSION_ID}))


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """(workspace, env, the project folder) after one prompt in the hot zone."""
    root = tmp_path_factory.mktemp("checkpoint")
    (root / "dagster").mkdir()
    folder = root / "shop-app"
    folder.mkdir()
    env = hook_env(root / "workspace", DAGSTER_HOME=str(root / "dagster"), MEMORY_CONTEXT_WINDOW="150000")
    workspace = Workspace(root / "workspace")
    try:
        done = run_hook(payload("UserPromptSubmit", fixture_transcript(BIG_SESSION), prompt=FIRST, cwd=str(folder)), env)
        assert done.returncode == 0 and done.stdout == b"", done.stderr  # 106k of 150k: 70.7 %, the hot zone
        yield workspace, env, folder
    finally:
        stop_workspace_services(workspace, runtime_dir())


def test_recall_from_the_project_folder_finds_the_checkpoint(session):
    workspace, env, folder = session
    [done] = wait_for(lambda: indexed(workspace.root, 1), what="the checkpoint indexed")
    assert done["project"] == "shop-app" and done["reason"] == "hot-zone"
    answer = recall_json("the transcript renderer tests", env, folder)
    hit = answer["hits"][0]
    assert answer["confidence"]["answered"], answer["confidence"]
    assert hit["id"] == checkpoint_id(SESSION_ID) and hit["session_id"] == SESSION_ID
    assert hit["tier"] == "messages" and hit["project"] == "shop-app" and hit["provenance"] == ["user"]
    assert hit["kind"] == "checkpoint"
    assert hit["text"].startswith("Task in progress: ") and FIRST in hit["text"]
    assert "the user's last requests:" in hit["text"] and "files: /home/USER/" in hit["text"]
    assert "70.7 % of the context" in hit["text"] and not hit["text"].startswith("User:")


def test_the_next_checkpoint_replaces_it_and_a_days_index_keeps_it(session, monkeypatch):
    workspace, env, folder = session
    wait_for(lambda: indexed(workspace.root, 1), what="the first checkpoint indexed")
    done = run_hook(payload("UserPromptSubmit", fixture_transcript(BIG_SESSION), prompt=SECOND, cwd=str(folder)), env)
    assert done.returncode == 0, done.stderr  # the task changed in the hot zone: a new checkpoint
    wait_for(lambda: indexed(workspace.root, 2), what="the second checkpoint indexed")
    monkeypatch.setenv("MEMORY_WORKSPACE", str(workspace.root))
    settings = Settings.from_env()
    [point] = stored_checkpoints(workspace, settings)
    assert point.id == checkpoint_id(SESSION_ID) and SECOND in point.payload["message"]

    # PreCompact writes the session's checkpoint too: it replaces the hot zone's
    transcript = before_compaction(folder.parent / "session.jsonl")
    done = run_hook(payload("PreCompact", transcript, trigger="auto", cwd=str(folder)), env)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert wait_for(lambda: indexed(workspace.root, 3), what="the PreCompact checkpoint indexed")[-1]["reason"] \
        == "pre-compact"
    [point] = stored_checkpoints(workspace, settings)
    assert point.payload["reason"] == "pre-compact" and "checkpoint before a compaction" in point.payload["message"]
    assert point.payload["project"] == "shop-app" and SECOND not in point.payload["message"]

    # a day's message index run without its manifest deletes the day's points it does not make: not this one
    embedder = embedder_for(settings.embedding_model, settings)
    stats = index_day(open_store(workspace, settings, embedder.dimension), embedder, point.payload["date"],
                      "messages", [])
    assert stats.deleted == 0 and len(stored_checkpoints(workspace, settings)) == 1


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_search_finds_the_checkpoint(session):
    from mcp import Client  # noqa: PLC0415 — the MCP SDK, only for its client here

    workspace, env, folder = session
    wait_for(lambda: indexed(workspace.root, 1), what="the checkpoint indexed")
    asked = hook_state(workspace.root)["checkpoint"]["user_messages"][-1]  # the latest checkpoint's last request
    async with Client(door(workspace, folder)) as client:
        result = await client.call_tool("search", {"query": asked, "limit": 5})
    text = "".join(c.text for c in result.content if c.type == "text")
    assert not result.is_error, text
    assert checkpoint_id(SESSION_ID) in text and "Task in progress: " in text and "said by user" in text, text
    line = next(row for row in text.splitlines() if row.startswith(checkpoint_id(SESSION_ID)))
    assert " · checkpoint · " in line and " · msg · " not in line, line  # its kind, not a message's
