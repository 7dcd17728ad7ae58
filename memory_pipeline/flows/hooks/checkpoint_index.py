"""The task checkpoint made searchable: indexed as its session's one point, off the hook's path.

The hot zone (flows/hooks/context.py) and PreCompact (flows/hooks/claude_code.py) save the checkpoint
in hook state, then start a detached `memory-pipeline hook claude-code --index-checkpoint SESSION`
(like the warm zone's recall refresh), so no prompt waits for the embedding model or the store. That
process embeds the checkpoint (stages/hooks/checkpoint_doc.py) and upserts it under the session's
stable id: `recall` and the MCP `search` tool find what a session was doing, from a parallel session
or a new one after a crash.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime

from memory_pipeline.config import Settings
from memory_pipeline.flows.hooks.transcript import HookResult
from memory_pipeline.models import StorePoint, TaskCheckpoint
from memory_pipeline.resources.files.hook_state import HookStateStore, log_decision
from memory_pipeline.resources.projects import resolve_project
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.hooks.checkpoint_doc import checkpoint_document
from memory_pipeline.stages.untrusted import working_folder

ROUNDS = 3  # a newer checkpoint saved while one was indexed is indexed in the same process, this many times at most


def folder_project(cwd: str | None, settings: Settings) -> str:
    """The project of the hook's folder, by the rule every door uses ("" for a folder not known)."""
    folder = working_folder(cwd)
    return resolve_project(folder, settings) if folder else ""


def spawn_checkpoint_index(session_id: str) -> None:
    """Index the session's checkpoint in a process detached from this hook (it outlives the hook)."""
    subprocess.Popen(
        [sys.executable, "-m", "memory_pipeline.cli", "hook", "claude-code", "--index-checkpoint", session_id],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True,
    )


def _index_one(workspace: Workspace, settings: Settings, session_id: str, checkpoint: TaskCheckpoint) -> bool:
    """Embed and upsert the checkpoint's point; False when it has nothing to be found by."""
    from memory_pipeline.flows.index.observations import IndexStats, index_points
    from memory_pipeline.flows.recall.engine import open_store
    from memory_pipeline.resources.embedding.onnx_embedder import embedder_for

    doc = checkpoint_document(checkpoint, session_id, checkpoint.project)
    if doc is None:
        return False
    embedder = embedder_for(settings.embedding_model, settings)
    store = open_store(workspace, settings, embedder.dimension).for_day(doc.payload["date"])
    point = StorePoint(id=doc.id, text=doc.text, payload=doc.payload)
    index_points(store, embedder, [point], IndexStats(), first=store.ensure_collection)
    return True


def index_checkpoint(workspace: Workspace, settings: Settings, session_id: str,
                     now: datetime | None = None) -> HookResult:
    """Index the session's saved checkpoint (`hook claude-code --index-checkpoint SESSION`)."""
    store = HookStateStore(workspace)
    checkpoint = store.load(session_id).checkpoint
    if checkpoint is None:
        return HookResult(note=f"no checkpoint saved for session {session_id}")
    indexed = False
    for _ in range(ROUNDS):
        indexed = _index_one(workspace, settings, session_id, checkpoint)
        newer = store.load(session_id).checkpoint
        if newer is None or newer == checkpoint:
            break
        checkpoint = newer  # saved while this one was embedded: its own process may have finished first
    log_decision(workspace, "checkpoint_indexed" if indexed else "checkpoint_not_indexed",
                 at=now or datetime.now().astimezone(), session_id=session_id, hook="UserPromptSubmit"
                 if checkpoint.reason == "hot-zone" else "PreCompact", reason=checkpoint.reason,
                 project=checkpoint.project)
    return HookResult(note=None if indexed else "the checkpoint names no task, file or request: not indexed")
