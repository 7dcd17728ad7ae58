"""Backfill: existing transcripts become shutdown events dated by their own timestamps.

Each session found (Claude Code projects folder without subagent files, pi or Codex sessions
folder, or single files) is emitted like a session end with `use_transcript_time=True`, then
accepted straight into `events/<day>/` so a Dagster backfill over those days (or `ingest`) sees it.
A session already imported (its dedupe key accepted or waiting in the inbox) is skipped. Every
other session with messages is imported; whether it is observed is judged by the work in it
(stages/windows.py): a short session is indexed (its messages become searchable) and, when it is
still going on (written to within `SESSION_IDLE`), waits to be observed with its next window. Only empty sessions and
subagent files are skipped, each with its reason. A session the hooks already captured live (or
an earlier import took) is imported from the message after the last one an event covered, so
nothing is indexed or observed twice; the import then records its own last message, so a later
live resume or import continues from there, and that later window is observed when it is long enough.

One event per session, covering the whole file: the transcript still holds every message from
before its compactions, so one observation sees it all; compaction events per window would make
the observer read the same messages twice.
"""

from __future__ import annotations

import stat
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError, EmptyTranscriptError
from memory_pipeline.flows.intake.emit import session_id_from
from memory_pipeline.flows.intake.windows import send_window
from memory_pipeline.models import HookSessionState
from memory_pipeline.resources import partitions
from memory_pipeline.resources.files.hook_state import HookStateStore
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.events import build_event, observe_skip_reason
from memory_pipeline.stages.transcripts import parse_transcript
from memory_pipeline.stages.windows import is_idle

SUFFIXES = (".jsonl",)


STATUSES = ("imported", "already", "skipped", "failed")


@dataclass
class ImportItem:
    path: str
    status: str  # one of STATUSES
    session_id: str | None = None
    day: str | None = None
    dedupe_key: str | None = None
    reason: str | None = None
    observed: bool | None = None  # imported: False when the Observer will skip it ("indexed, not observed")
    project: str | None = None  # the project the session was filed under
    cut: str | None = None  # what of a transcript over its limits was not read (stages/transcripts/lines.py)


@dataclass
class ImportReport:
    items: list[ImportItem] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        found = Counter(item.status for item in self.items)
        counts = {status: found.get(status, 0) for status in STATUSES}
        counts["indexed_not_observed"] = sum(1 for item in self.items if item.observed is False)
        return counts

    @property
    def projects(self) -> dict[str, int]:
        """Sessions imported per project ("" = no project known)."""
        return dict(sorted(Counter(item.project or "" for item in self.items if item.status == "imported").items()))

    @property
    def days(self) -> list[str]:
        return sorted({item.day for item in self.items if item.status == "imported" and item.day})

    def as_dict(self) -> dict:
        return {**self.counts, "days": self.days, "projects": self.projects, "items": [item.__dict__ for item in self.items]}


def is_subagent_file(path: Path) -> bool:
    """Claude Code writes subagent runs to <session>/subagents/agent-*.jsonl (older: agent-*.jsonl)."""
    return "subagents" in path.parts or path.name.startswith("agent-")


SUBAGENT = "subagent transcript: part of its parent session, which is imported"


OUTSIDE = "a link to {target}, outside {folder}: not followed (import the file itself to take it)"
NOT_REGULAR = "not a regular file ({kind}): not read"


def _special_kind(path: Path) -> str | None:
    """What a path that is not a regular file is (a FIFO would block the read for ever), None for a regular
    file or a folder; OSError for one that cannot be looked at (a broken link)."""
    mode = path.stat().st_mode
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"


def _candidate(candidate: Path, folder: Path, root: Path) -> tuple[Path | None, ImportItem | None]:
    """A `*.jsonl` found under `folder` (`root` resolved): its real path to import, or why it is skipped.
    A link is followed only to a file inside the folder; a FIFO, socket or device is never read."""
    try:
        target = candidate.resolve()
        kind = _special_kind(candidate)
    except (OSError, RuntimeError) as exc:  # a broken link, or a loop
        return None, ImportItem(str(candidate), "skipped", reason=f"cannot be read: {exc}")
    if target != root and root not in target.parents:
        return None, ImportItem(str(candidate), "skipped", reason=OUTSIDE.format(target=target, folder=folder))
    if kind is not None:
        return None, ImportItem(str(candidate), "skipped", reason=NOT_REGULAR.format(kind=kind))
    if not target.is_file():
        return None, None  # a folder named *.jsonl
    return target, None


def find_transcripts(paths: Iterable[Path]) -> tuple[list[Path], list[ImportItem]]:
    """Transcript files under the given folders and files, and items for what is not imported:
    paths that do not exist (failed), subagent files, links out of the folder given, FIFOs and
    devices (skipped)."""
    found: dict[Path, None] = {}
    reported: list[ImportItem] = []
    for given in paths:
        path = Path(given).expanduser()
        if path.is_dir():
            root = path.resolve()
            for candidate in sorted(path.rglob("*")):
                if candidate.suffix not in SUFFIXES:
                    continue
                target, skipped = _candidate(candidate, path, root)
                if skipped is not None:
                    reported.append(skipped)
                elif target is None:
                    continue
                elif is_subagent_file(candidate.relative_to(path)):
                    reported.append(ImportItem(str(target), "skipped", reason=SUBAGENT))
                else:
                    found.setdefault(target, None)
        elif path.is_file():
            found.setdefault(path.resolve(), None)
        elif path.exists():
            try:
                kind = _special_kind(path) or "not a file"
            except OSError as exc:
                kind = str(exc)
            reported.append(ImportItem(str(path), "skipped", reason=NOT_REGULAR.format(kind=kind)))
        else:
            reported.append(ImportItem(str(path), "failed", reason="no such file or folder"))
    return list(found), reported


def already_imported(workspace: Workspace, dedupe_key: str) -> bool:
    accepted = any(workspace.events_root.glob(f"*/{dedupe_key}.json"))
    waiting = any(workspace.inbox.glob(f"*-shutdown-{dedupe_key[:16]}.json")) if workspace.inbox.is_dir() else False
    return accepted or waiting


def import_one(workspace: Workspace, path: Path, valid_day: Callable[[str], bool], settings: Settings,
               project: str | None = None) -> ImportItem:
    try:
        transcript = parse_transcript(path)
    except EmptyTranscriptError:
        return ImportItem(str(path), "skipped", reason="empty session: no user or assistant messages")
    except BadInputError as exc:
        return ImportItem(str(path), "failed", reason=str(exc))
    session_id = session_id_from(transcript, path)
    store = HookStateStore(workspace)
    before = store.load(session_id)
    covered = before.last_event_message_id
    if covered is not None and covered not in {m.id for m in transcript.messages}:
        covered = None  # another file of the session (a migrated copy): its ids are not this one's
    if covered is None:
        draft = build_event(transcript, trigger="shutdown", session_id=session_id,
                            captured_at=datetime.now().astimezone(), messages="-")
        if already_imported(workspace, draft.data.dedupe_key):
            return ImportItem(str(path), "already", session_id, dedupe_key=draft.data.dedupe_key)
    now = datetime.now().astimezone()
    try:
        result = send_window(workspace, path, session_id=session_id, trigger="shutdown", use_transcript_time=True,
                             project=project, parsed=transcript, session_over=is_idle(transcript.ended_at, now),
                             settings=settings)
    except BadInputError as exc:
        return ImportItem(str(path), "failed", session_id, reason=str(exc))
    if result.path is None or result.event is None:
        if covered:
            return ImportItem(str(path), "already", session_id, reason=f"captured up to message {covered}")
        return ImportItem(str(path), "skipped", session_id, reason=result.skipped)
    outcome = Inbox(workspace).take(result.path, valid_day)
    status = {"accepted": "imported", "duplicate": "already"}.get(outcome.status, "failed")
    if status == "failed":  # refused: the record goes back, so importing again sends the window again
        store.update(session_id, lambda s: restore_record(s, before), now)
    else:
        workspace.reach_back(result.event.day)  # the partitions now hold this day, for every reader
    skip = observe_skip_reason(result.event)
    return ImportItem(str(path), status, session_id, result.event.day, result.event.data.dedupe_key,
                      reason=_explain(outcome.reason, result.event.day, settings.partitions_start) if status == "failed" else skip,
                      observed=(skip is None) if status == "imported" else None,
                      project=result.event.data.project or "", cut=transcript.cut)


def restore_record(state: HookSessionState, before: HookSessionState) -> None:
    state.last_event_message_id, state.waiting_from_id = before.last_event_message_id, before.waiting_from_id


def _explain(reason: str | None, day: str, start: str | None) -> str | None:
    """A transcript older than MEMORY_PARTITIONS_START (`start`): say what to change."""
    if not start or day >= start:
        return reason
    return (f"dated {day}, before MEMORY_PARTITIONS_START={start}: unset it (an import reaches back to its "
            f"oldest session by itself) or set it to {day} or earlier, and import again")


def import_transcripts(
    workspace: Workspace,
    paths: Iterable[Path],
    settings: Settings,
    *,
    on_found: Callable[[int], None] | None = None,
    on_item: Callable[[ImportItem], None] | None = None,
    project: str | None = None,
) -> ImportReport:
    valid_day = partitions.importable_day(settings)
    workspace.create()
    files, missing = find_transcripts(paths)
    report = ImportReport(items=list(missing))
    if on_found:
        on_found(len(files))
    for path in files:
        item = import_one(workspace, path, valid_day, settings, project)
        report.items.append(item)
        if on_item:
            on_item(item)
    return report
