"""Index a day's transcript messages in the vector store (the "messages" tier).

Reuses `index_points`: ids are content-derived, unchanged messages are not embedded again,
and points of the day's messages that no longer exist (an edited window) are deleted.
"""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.flows.index import IndexStats, index_day
from memory_pipeline.flows.observe import collect_sessions, session_project
from memory_pipeline.ports import Embedder, ShardedIndex
from memory_pipeline.resources.inbox import Inbox
from memory_pipeline.resources.observation_files import load_session
from memory_pipeline.resources.vector_store import StorePoint
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.index.message_docs import DocOptions, message_documents


def day_message_points(workspace: Workspace, day: str, options: DocOptions = DocOptions()) -> list[StorePoint]:
    """The message points of every accepted session of the day (collected if not yet on disk)."""
    points: dict[str, StorePoint] = {}
    events = Inbox(workspace).accepted(day)
    transcripts = {e.data.dedupe_key: load_session(workspace, day, e) for e in events}
    if any(t is None for t in transcripts.values()):
        collected = {r.event.data.dedupe_key: r.transcript for r in collect_sessions(workspace, day)}
        transcripts.update({k: v for k, v in collected.items() if transcripts.get(k) is None})
    for event in events:
        transcript = transcripts.get(event.data.dedupe_key)
        if transcript is None:
            continue
        project = session_project(workspace, day, event, transcript)
        for doc in message_documents(transcript, day=day, session_id=event.data.session_id, options=options,
                                     project=project):
            points[doc.id] = StorePoint(id=doc.id, text=doc.text, payload=doc.payload)
    return list(points.values())


def index_messages(store: ShardedIndex, embedder: Embedder, day: str, points: list[StorePoint], manifest_dir: Path | None = None) -> IndexStats:
    return index_day(store, embedder, day, "messages", points, manifest_dir)


def index_message_day(workspace: Workspace, store: ShardedIndex, embedder: Embedder, day: str) -> IndexStats:
    """The `message_index` asset's work: every message of the day's sessions, manifest in state/index."""
    return index_messages(store, embedder, day, day_message_points(workspace, day),
                          manifest_dir=workspace.state_path("index"))
