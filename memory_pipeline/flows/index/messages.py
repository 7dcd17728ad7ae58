"""Index a day's transcript messages in the vector store (the "messages" tier).

Reuses `index_day`: ids are content-derived, unchanged messages are not embedded again, and points
of the day's messages that no longer exist (an edited window) are deleted. The points are made
session by session while `index_day` reads them, and each message is released once its point is
made: a session of 100k tiny messages never holds its transcript, its documents and its points at
once (together 380 MB at 100k, beside what the store holds).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.flows.index.observations import IndexStats, PointSource, index_day, read_manifest
from memory_pipeline.flows.observe import collect_sessions, session_project
from memory_pipeline.models import Message
from memory_pipeline.ports import Embedder, ShardedIndex
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.files.observation_files import load_session, sessions_path
from memory_pipeline.resources.vectors.vector_store import StorePoint
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.index.message_docs import DocOptions, stream_message_documents
from memory_pipeline.stages.index.passages import TIER as PASSAGES
from memory_pipeline.stages.index.passages import turn_passages


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


def passage_points_of(points: PointSource) -> PointSource:
    """The passages of the message points `points` makes (stages/index/passages.py), made anew on each call."""
    def made() -> Iterator[StorePoint]:
        for pid, text, payload in turn_passages((p.id, p.payload) for p in points()):
            yield StorePoint(id=pid, text=text, payload=payload)
    return made


def index_messages(store: ShardedIndex, embedder: Embedder, day: str, points: list[StorePoint] | PointSource,
                   manifest_dir: Path | None = None) -> IndexStats:
    """The day's message points, then their passages (each tier exactly what `points` makes)."""
    read = points if callable(points) else (lambda: points)
    stats = index_day(store, embedder, day, "messages", read, manifest_dir)
    stats.add(index_day(store, embedder, day, PASSAGES, passage_points_of(read), manifest_dir), "passages")
    return stats


PASSAGE_BACKFILL_SECONDS = 600.0  # a night's share of the catch-up: a year of heavy use (~300k windows) takes a
# few nights on a laptop's CPU, newest days first, and recall works meanwhile (a turn without passages scores
# by its own vector, as before)
READ_CHUNK = 2048  # message points read back from the store at a time


def days_without_passages(manifest_dir: Path) -> list[str]:
    """The days whose messages were indexed before passages existed (a messages manifest, no passages
    one), newest first."""
    done = {p.stem for p in (manifest_dir / PASSAGES).glob("*.json")}
    return sorted((p.stem for p in (manifest_dir / "messages").glob("*.json") if p.stem not in done), reverse=True)


def _stored_points(store: ShardedIndex, ids: list[str]) -> PointSource:
    def read() -> Iterator[StorePoint]:
        for first in range(0, len(ids), READ_CHUNK):
            yield from store.retrieve(ids[first:first + READ_CHUNK])
    return read


def backfill_passages(store: ShardedIndex, embedder: Embedder, manifest_dir: Path,
                      budget_s: float = PASSAGE_BACKFILL_SECONDS) -> tuple[list[str], int]:
    """Index the passages of the days indexed before them, from their message points in the store (the
    transcripts are not read again), newest day first, until `budget_s` seconds have passed; the days
    done and the passages embedded. A day cut short by a crash is done again (its manifest comes last)."""
    started, done, embedded = time.monotonic(), [], 0
    days = days_without_passages(manifest_dir)
    with store.holding() if days else contextlib.nullcontext():  # one open for the night's days
        for day in days:
            if time.monotonic() - started >= budget_s:
                break
            ids = read_manifest(manifest_dir / "messages" / f"{day}.json")
            if ids is None:  # unreadable: the day's next message index writes it again
                continue
            stats = index_day(store, embedder, day, PASSAGES,
                              passage_points_of(_stored_points(store, sorted(ids))), manifest_dir)
            done.append(day)
            embedded += stats.embedded
    return done, embedded


def index_message_day(workspace: Workspace, settings: Settings, store: ShardedIndex, embedder: Embedder,
                      day: str) -> IndexStats:
    """The `message_index` asset's work: every message of the day's sessions and the passages of the
    user's turns, manifests in state/index."""
    collect_missing_sessions(workspace, day)
    with store.holding():  # one open for the day's two tiers, let go whenever another opener waits
        return index_messages(store, embedder, day, partial(day_message_points, workspace, settings, day),
                              manifest_dir=workspace.state_path("index"))
