"""Backfill: existing transcripts become shutdown events dated by their own timestamps.

Each session found (Claude Code projects folder without subagent files, pi or Codex sessions
folder, or single files) is emitted like a session end with `use_transcript_time=True`, then
accepted straight into `events/<day>/` so a Dagster backfill over those days (or `ingest`) sees it.
A session already imported (its dedupe key accepted or waiting in the inbox) is skipped, and so
is a session under 5 user messages. A session the hooks already captured live (or an earlier
import took) is imported from the message after the last one an event covered, so nothing is
observed twice; the import then records its own last message, so a later live resume or import
continues from there.

One event per session, covering the whole file: the transcript still holds every message from
before its compactions, so one observation sees it all; compaction events per window would make
the observer read the same messages twice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError
from memory_pipeline.flows.emit import _session_id_from, emit_session_event
from memory_pipeline.resources.hook_state import HookStateStore
from memory_pipeline.resources.inbox import Inbox
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.events import MIN_USER_MESSAGES_FOR_SHUTDOWN, build_event
from memory_pipeline.stages.transcripts import parse_transcript

SUFFIXES = (".jsonl",)


@dataclass
class ImportItem:
    path: str
    status: str  # imported | already | too-short | failed
    session_id: str | None = None
    day: str | None = None
    dedupe_key: str | None = None
    reason: str | None = None


@dataclass
class ImportReport:
    items: list[ImportItem] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        found = Counter(item.status for item in self.items)
        return {status: found.get(status, 0) for status in ("imported", "already", "too-short", "failed")}

    @property
    def days(self) -> list[str]:
        return sorted({item.day for item in self.items if item.status == "imported" and item.day})

    def as_dict(self) -> dict:
        return {**self.counts, "days": self.days, "items": [item.__dict__ for item in self.items]}


def is_subagent_file(path: Path) -> bool:
    """Claude Code writes subagent runs to <session>/subagents/agent-*.jsonl (older: agent-*.jsonl)."""
    return "subagents" in path.parts or path.name.startswith("agent-")


def find_transcripts(paths: Iterable[Path]) -> tuple[list[Path], list[ImportItem]]:
    """Transcript files under the given folders and files, and items for paths that do not exist."""
    found: dict[Path, None] = {}
    missing: list[ImportItem] = []
    for given in paths:
        path = Path(given).expanduser()
        if path.is_dir():
            for candidate in sorted(path.rglob("*")):
                relative = candidate.relative_to(path)
                if candidate.is_file() and candidate.suffix in SUFFIXES and not is_subagent_file(relative):
                    found.setdefault(candidate.resolve(), None)
        elif path.is_file():
            found.setdefault(path.resolve(), None)
        else:
            missing.append(ImportItem(str(path), "failed", reason="no such file or folder"))
    return list(found), missing


def already_imported(workspace: Workspace, dedupe_key: str) -> bool:
    accepted = any(workspace.events_root.glob(f"*/{dedupe_key}.json"))
    waiting = any(workspace.inbox.glob(f"*-shutdown-{dedupe_key[:16]}.json")) if workspace.inbox.is_dir() else False
    return accepted or waiting


def import_one(workspace: Workspace, path: Path, valid_day: Callable[[str], bool]) -> ImportItem:
    try:
        transcript = parse_transcript(path)
    except BadInputError as exc:
        return ImportItem(str(path), "failed", reason=str(exc))
    session_id = _session_id_from(transcript, path)
    if transcript.user_message_count < MIN_USER_MESSAGES_FOR_SHUTDOWN:
        return ImportItem(str(path), "too-short", session_id,
                          reason=f"{transcript.user_message_count} user messages")
    hook_state = HookStateStore(workspace)
    covered = hook_state.load(session_id).last_event_message_id
    if covered is None:
        draft = build_event(transcript, trigger="shutdown", session_id=session_id,
                            captured_at=datetime.now().astimezone(), messages="-")
        if already_imported(workspace, draft.data.dedupe_key):
            return ImportItem(str(path), "already", session_id, dedupe_key=draft.data.dedupe_key)
    try:
        result = emit_session_event(workspace, path, trigger="shutdown", session_id=session_id,
                                    window=f"after:{covered}" if covered else "all", use_transcript_time=True)
    except BadInputError as exc:
        return ImportItem(str(path), "failed", session_id, reason=str(exc))
    if result.path is None or result.event is None:
        if covered:
            return ImportItem(str(path), "already", session_id, reason=f"captured up to message {covered}")
        return ImportItem(str(path), "too-short", session_id, reason=result.skipped)
    outcome = Inbox(workspace).take(result.path, valid_day)
    status = {"accepted": "imported", "duplicate": "already"}.get(outcome.status, "failed")
    if status != "failed":
        last = result.last_message_id
        hook_state.update(session_id, lambda s: setattr(s, "last_event_message_id", last), datetime.now().astimezone())
    return ImportItem(str(path), status, session_id, result.event.day, result.event.data.dedupe_key,
                      reason=_explain(outcome.reason, result.event.day) if status == "failed" else None)


def _explain(reason: str | None, day: str) -> str | None:
    """A transcript older than the partitions' first day: say what to set."""
    start = pipeline.partitions_start(Settings.from_env())
    if day >= start:
        return reason
    return (f"dated {day}, before the daily partitions' first day {start}: set MEMORY_PARTITIONS_START={day} "
            "(or earlier) and import again; an earlier first day only adds partitions, nothing moves")


def import_transcripts(
    workspace: Workspace,
    paths: Iterable[Path],
    *,
    on_found: Callable[[int], None] | None = None,
    on_item: Callable[[ImportItem], None] | None = None,
) -> ImportReport:
    valid_day = pipeline.day_checker(Settings.from_env())
    workspace.create()
    files, missing = find_transcripts(paths)
    report = ImportReport(items=list(missing))
    if on_found:
        on_found(len(files))
    for path in files:
        item = import_one(workspace, path, valid_day)
        report.items.append(item)
        if on_item:
            on_item(item)
    return report
