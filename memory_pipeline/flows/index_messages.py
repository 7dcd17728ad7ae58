"""Index a day's transcript messages in the vector store (the "messages" tier).

Reuses `index_day`: ids are content-derived, unchanged messages are not embedded again, and points
of the day's messages that no longer exist (an edited window) are deleted. The points are made
session by session while `index_day` reads them, and each message is released once its point is
made: a session of 100k tiny messages never holds its transcript, its documents and its points at
once (together 380 MB at 100k, beside what the store holds).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.flows.index import IndexStats, PointSource, index_day
from memory_pipeline.flows.observe import collect_sessions, session_project
from memory_pipeline.models import Message
from memory_pipeline.ports import Embedder, ShardedIndex
from memory_pipeline.resources.inbox import Inbox
from memory_pipeline.resources.observation_files import load_session, sessions_path
from memory_pipeline.resources.vector_store import StorePoint
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.index.message_docs import DocOptions, stream_message_documents


def _handed_out(messages: list[Message]) -> Iterator[Message]:
    """`messages` in order, each dropped from the list as it is handed out (the list ends empty)."""
    messages.reverse()
    while messages:
        yield messages.pop()


def collect_missing_sessions(workspace: Workspace, day: str) -> None:
    """Write the day's session files when one is missing (`sessions` not materialized for the day);
    a bad transcript gets none and is reported by `sessions`."""
    if any(not sessions_path(workspace, day, e.data.dedupe_key).exists() for e in Inbox(workspace).accepted(day)):
        collect_sessions(workspace, day)


def day_message_points(workspace: Workspace, settings: Settings, day: str,
                       options: DocOptions = DocOptions()) -> Iterator[StorePoint]:
    """The message points of every accepted session of the day that has a session file, made one
    session at a time (`settings`: the project of an older event that names none)."""
    for event in Inbox(workspace).accepted(day):
        transcript = load_session(workspace, day, event)
        if transcript is None:
            continue
        project = session_project(workspace, day, event, settings, transcript)
        messages = transcript.messages
        del transcript  # only the messages are read below, each released once its point is made
        for doc in stream_message_documents(_handed_out(messages), day=day, session_id=event.data.session_id,
                                            options=options, project=project):
            yield StorePoint(id=doc.id, text=doc.text, payload=doc.payload)


def index_messages(store: ShardedIndex, embedder: Embedder, day: str, points: list[StorePoint] | PointSource,
                   manifest_dir: Path | None = None) -> IndexStats:
    return index_day(store, embedder, day, "messages", points, manifest_dir)


def index_message_day(workspace: Workspace, settings: Settings, store: ShardedIndex, embedder: Embedder,
                      day: str) -> IndexStats:
    """The `message_index` asset's work: every message of the day's sessions, manifest in state/index."""
    collect_missing_sessions(workspace, day)
    return index_messages(store, embedder, day, partial(day_message_points, workspace, settings, day),
                          manifest_dir=workspace.state_path("index"))
