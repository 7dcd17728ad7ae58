"""The inbox of event files: write, take (accept or quarantine), and read accepted events.

Agents drop one JSON file per event into `inbox/` (temp file + rename). Taking a file either
moves it to `events/<day>/<dedupeKey>.json` (accepted; a second file with the same key is a
duplicate and is dropped) or to `inbox/quarantine/` with a `.reason.json` beside it. A file
that does not parse and is younger than the grace period may still be being written by a
non-atomic writer: it is left for the next pass.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import QuarantineEntry, SessionEvent, Transcript
from memory_pipeline.resources.files.snapshots import snapshot_digest, snapshot_paths
from memory_pipeline.resources.workspace import Workspace, atomic_write_text, ensure_dir
from memory_pipeline.stages.events import event_to_json, parse_event
from memory_pipeline.stages.transcripts import detect_format, parse_parts, parse_transcript
from memory_pipeline.stages.transcripts.lines import head_text

WRITE_GRACE_SECONDS = 5.0
MAX_EVENT_ATTEMPTS = 3  # an accepted event whose transcript fails this many times is quarantined


@dataclass(frozen=True)
class TakeOutcome:
    path: Path
    status: str  # "accepted" | "duplicate" | "quarantined" | "waiting"
    event: SessionEvent | None = None
    reason: str | None = None
    accepted_path: Path | None = None


def inbox_file_name(event: SessionEvent) -> str:
    stamp = event.data.captured_at.astimezone(UTC).strftime("%Y%m%dT%H%M%S")
    return f"{stamp}-{event.data.trigger}-{event.data.dedupe_key[:16]}.json"


def _same_event(accepted: Path, event: SessionEvent) -> bool:
    """The same dedupe key and the same content (the transcript's hash or inline messages, the counts)."""
    try:
        known = parse_event(accepted.read_bytes()).data
    except (OSError, BadInputError):
        return False
    new = event.data
    same_ref = (known.transcript.sha256 if known.transcript else None) == (new.transcript.sha256 if new.transcript else None)
    return same_ref and known.messages == new.messages and known.message_count == new.message_count


class Inbox:
    def __init__(self, workspace: Workspace, grace_seconds: float = WRITE_GRACE_SECONDS):
        self.workspace = workspace
        self.grace_seconds = grace_seconds

    # --- writing ----------------------------------------------------------------------
    def write(self, event: SessionEvent) -> Path:
        path = ensure_dir(self.workspace.inbox) / inbox_file_name(event)
        atomic_write_text(path, event_to_json(event))
        return path

    # --- taking -----------------------------------------------------------------------
    def pending(self) -> list[Path]:
        """Event files waiting in the inbox, oldest first (temp files are not events yet)."""
        if not self.workspace.inbox.is_dir():
            return []
        files = [
            p
            for p in self.workspace.inbox.iterdir()
            if p.is_file() and p.suffix == ".json" and not p.name.startswith(".")
        ]
        return sorted(files, key=lambda p: (p.stat().st_mtime_ns, p.name))

    def take(self, path: Path, valid_day=None) -> TakeOutcome:
        """Accept or quarantine one file; `valid_day(day) -> bool` guards the partition range."""
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return TakeOutcome(path, "waiting", reason="file vanished (taken by another process)")
        except OSError as exc:
            return self.quarantine(path, f"unreadable event file: {exc.strerror or exc}")
        try:
            event = parse_event(raw)
        except BadInputError as exc:
            if self._maybe_still_writing(path, str(exc)):
                return TakeOutcome(path, "waiting", reason=str(exc))
            return self.quarantine(path, str(exc))
        if valid_day is not None and not valid_day(event.day):
            return self.quarantine(path, f"capturedAt day {event.day} is outside the daily partitions")
        if refused := self.refuse_snapshot(event):
            return self.quarantine(path, refused)
        return self.accept(path, event)

    def refuse_snapshot(self, event: SessionEvent) -> str | None:
        """Why the event's transcript reference cannot be read as a session, or None: it must be a
        snapshot under transcripts/ (never the workspace's own state), hold the bytes its sha256
        names, and read as a transcript."""
        ref = event.data.transcript
        if ref is None:
            return None
        try:
            paths = snapshot_paths(self.workspace, ref)
        except ValueError as exc:
            return str(exc)
        if any(self.workspace.transcripts.resolve() not in path.parents for path in paths):
            return f"transcript {ref.path!r} is not a snapshot under transcripts/ (the workspace's own files are refused)"
        try:
            digest, _ = snapshot_digest(paths)
        except OSError as exc:
            return f"transcript snapshot unreadable: {ref.path} ({exc.strerror or exc})"
        if digest != ref.sha256:  # the sha256 of its UTF-8 text: of its bytes, read in chunks, never whole
            return f"transcript snapshot {ref.path} does not match the sha256 the event names"
        if ref.format != "text" and detect_format(head_text(paths)) != ref.format:  # a long first line passed over
            return f"transcript snapshot {ref.path} does not read as a {ref.format} transcript"
        return None

    def _maybe_still_writing(self, path: Path, reason: str) -> bool:
        looks_partial = "not valid JSON" in reason or "is empty" in reason
        try:
            age = time.time() - path.stat().st_mtime
        except FileNotFoundError:
            return False
        return looks_partial and age < self.grace_seconds

    def accept(self, path: Path, event: SessionEvent) -> TakeOutcome:
        target = self.workspace.events_dir(event.day) / f"{event.data.dedupe_key}.json"
        with self.workspace.locked("inbox-accept"):
            if target.exists():
                if not _same_event(target, event):
                    return self.quarantine(path, f"dedupeKey conflict: {event.data.dedupe_key} was already "
                                                 "accepted with different content")
                path.unlink(missing_ok=True)
                self.heal(event.data.dedupe_key)
                return TakeOutcome(path, "duplicate", event, reason="same dedupeKey already accepted")
            atomic_write_text(target, event_to_json(event))
            path.unlink(missing_ok=True)
            self.heal(event.data.dedupe_key)
        return TakeOutcome(path, "accepted", event, accepted_path=target)

    def heal(self, dedupe_key: str) -> int:
        """Drop the quarantined copies of an event now accepted (an import refused or failed before,
        imported again), with their reasons and failure count. Returns how many were dropped."""
        healed = [p for p in self.workspace.quarantine.glob(f"*{dedupe_key[:16]}*.json")
                  if not p.name.endswith(".reason.json")] if self.workspace.quarantine.is_dir() else []
        for copy in healed:
            copy.with_name(copy.name + ".reason.json").unlink(missing_ok=True)
            copy.unlink(missing_ok=True)
        if healed:
            self._forget_failures(dedupe_key)
        return len(healed)

    def quarantine(self, path: Path, reason: str) -> TakeOutcome:
        folder = ensure_dir(self.workspace.quarantine)
        target = folder / path.name
        if target.exists():
            target = folder / f"{path.stem}-{int(time.time() * 1000)}{path.suffix}"
        try:
            os.replace(path, target)
        except FileNotFoundError:
            return TakeOutcome(path, "waiting", reason="file vanished (taken by another process)")
        entry = QuarantineEntry(file=target.name, reason=reason, quarantined_at=datetime.now(UTC))
        atomic_write_text(target.with_name(target.name + ".reason.json"), entry.model_dump_json(indent=2) + "\n")
        return TakeOutcome(path, "quarantined", reason=reason)

    def quarantined(self) -> list[QuarantineEntry]:
        if not self.workspace.quarantine.is_dir():
            return []
        entries = []
        for reason_file in sorted(self.workspace.quarantine.glob("*.reason.json")):
            try:
                entries.append(QuarantineEntry.model_validate_json(reason_file.read_text(encoding="utf-8")))
            except ValueError:
                continue
        return entries

    def failed(self, event: SessionEvent, reason: str) -> bool:
        """Count one failure of an accepted event; at MAX_EVENT_ATTEMPTS it moves to the quarantine
        with the reason (so it is not re-run forever). True when it was quarantined."""
        key = event.data.dedupe_key
        counts = self._update_failures(lambda counts: counts.__setitem__(key, int(counts.get(key, 0)) + 1))
        if counts[key] < MAX_EVENT_ATTEMPTS:
            return False
        accepted = self.workspace.events_dir(event.day) / f"{key}.json"
        return self.quarantine(accepted, f"failed {counts[key]} times: {reason}").status == "quarantined"

    def _forget_failures(self, dedupe_key: str) -> None:
        self._update_failures(lambda counts: counts.pop(dedupe_key, None))

    def _update_failures(self, change) -> dict[str, int]:
        """Change state/event-failures.json (dedupeKey → failed runs) under its lock; the counts after."""
        path = self.workspace.state_path("event_failures")
        with self.workspace.locked("event-failures"):
            try:
                counts = json.loads(path.read_text(encoding="utf-8"))
            except (FileNotFoundError, ValueError):
                counts = {}
            change(counts)
            self.workspace.write_json(path, counts)
        return counts

    # --- accepted events ----------------------------------------------------------------
    def accepted(self, day: str) -> list[SessionEvent]:
        folder = self.workspace.events_dir(day)
        if not folder.is_dir():
            return []
        events = [parse_event(p.read_bytes()) for p in sorted(folder.glob("*.json"))]
        return sorted(events, key=lambda e: (e.data.captured_at, e.data.dedupe_key))

    def accepted_days(self) -> list[str]:
        root = self.workspace.events_root
        if not root.is_dir():
            return []
        return sorted(p.name for p in root.iterdir() if p.is_dir() and any(p.glob("*.json")))

    def accepted_since(self, mtime_ns: int) -> list[tuple[int, SessionEvent]]:
        """Accepted events written after `mtime_ns` (the sensor's cursor), oldest first."""
        root = self.workspace.events_root
        if not root.is_dir():
            return []
        found = []
        for path in root.glob("*/*.json"):
            stamp = path.stat().st_mtime_ns
            if stamp > mtime_ns:
                found.append((stamp, path))
        found.sort()
        return [(stamp, parse_event(path.read_bytes())) for stamp, path in found]

    # --- transcripts --------------------------------------------------------------------
    def load_transcript(self, event: SessionEvent) -> Transcript:
        """The event's transcript: its workspace snapshot, or the inline serialized messages."""
        ref = event.data.transcript
        if ref is not None:
            try:
                paths = snapshot_paths(self.workspace, ref)
            except ValueError as exc:
                raise BadInputError(str(exc)) from None
            if missing := [p for p in paths if not p.is_file()]:
                raise BadInputError(f"transcript snapshot missing: {self.workspace.relative(missing[0])}")
            transcript = parse_parts(paths, format=ref.format, session_id=event.data.session_id)
        else:
            transcript = parse_transcript((event.data.messages or "") + "\n", format="text", session_id=event.data.session_id)
        ids = [m.id for m in transcript.messages]
        start, end = event.data.window_start_id, event.data.window_end_id
        first = ids.index(start) if start in ids else 0
        last = ids.index(end) + 1 if end in ids else len(ids)
        if (first, last) != (0, len(ids)):
            transcript = transcript.model_copy(update={"messages": transcript.messages[first:last]})
        return transcript

