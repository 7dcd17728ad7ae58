"""Transcript snapshots: what an event reads, stored once per byte of the session.

The transcript file keeps growing after an event, so the event points at a redacted copy taken
then. A session resumed 25 times used to store 25 full copies; now each event stores only the lines
written since the session's previous snapshot (`transcripts/<session>/<key>.jsonl`), and its
`TranscriptRef` lists the earlier parts (`parts`, oldest first): the snapshot is their bytes in
order, and `sha256` is the hash of those bytes. `chain.json` beside the parts records how much of
the source file they cover and its hash, so a file that was rewritten rather than appended to (or
another file of the session) starts a new chain with a full copy. Plain-text transcripts, and a file
whose last line is not finished, are copied whole.

A Claude Code transcript under `<config>/projects/` is read beside its client's prompt history
(`<config>/history.jsonl`): a user line that a history entry of the session ties to a paste is
marked in the snapshot (stages/transcripts/pastes.py), so it is labelled `pasted`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from memory_pipeline.models import TranscriptRef, content_hash
from memory_pipeline.resources.workspace import Workspace, atomic_write_chunks, atomic_write_json, atomic_write_text
from memory_pipeline.stages.events import check_session_id
from memory_pipeline.stages.redact import redact, redact_jsonl_lines
from memory_pipeline.stages.transcripts.control import CONTROL
from memory_pipeline.stages.transcripts.lines import MAX_TRANSCRIPT_BYTES, file_lines, newest_ranges
from memory_pipeline.stages.transcripts.pastes import HistoryPaste, history_pastes, mark_pasted

CHAIN_FILE = "chain.json"
READ_CHUNK = 1 << 20
HISTORY_FILE = "history.jsonl"  # Claude Code's prompt history, beside its projects/ folder


@dataclass
class Chain:
    source_bytes: int  # how much of the source file the parts cover
    source_sha256: str  # the hash of those source bytes
    parts: list[str]  # workspace-relative, oldest first


def _load_chain(folder: Path) -> Chain | None:
    try:
        return Chain(**json.loads((folder / CHAIN_FILE).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def _source_prefix_hash(path: Path, size: int) -> str:
    digest, left = hashlib.sha256(), size
    with path.open("rb") as handle:
        while left > 0 and (block := handle.read(min(READ_CHUNK, left))):
            digest.update(block)
            left -= len(block)
    return digest.hexdigest()


def _lines(path: Path, ranges: list[tuple[Path, int, int]]) -> Iterator[str]:
    """The source's lines in the ranges, decoded (each range ends after a newline); a line over
    MAX_LINE_BYTES is passed over, and control characters (a raw NUL, an escape) are not kept."""
    for part, start, end in ranges:
        for line in file_lines(part, start, end):
            yield CONTROL.sub("", line.decode("utf-8", errors="replace"))


def claude_history(path: Path, session_id: str) -> list[HistoryPaste]:
    """The pastes Claude Code's prompt history records for the session of the transcript at `path`
    (`<config>/projects/<folder>/<session>.jsonl` → `<config>/history.jsonl`); none when there is no
    such file, it is not a regular file (a link is not followed), or it cannot be read."""
    if path.parent.parent.name != "projects":
        return []
    history = path.parent.parent.parent / HISTORY_FILE
    try:
        if history.is_symlink() or not history.is_file():
            return []
        with history.open(encoding="utf-8", errors="replace") as handle:
            return history_pastes(handle, session_id)
    except OSError:
        return []


def snapshot_paths(workspace: Workspace, ref: TranscriptRef) -> list[Path]:
    """Every file of a snapshot, oldest first, resolved inside the workspace (ValueError otherwise)."""
    return [workspace.resolve_inside(p) for p in [*(ref.parts or []), ref.path]]


def snapshot_digest(paths: list[Path], head_bytes: int = 0) -> tuple[str, bytes]:
    """The sha256 of the parts' bytes in order, and the first `head_bytes` of them."""
    digest, head = hashlib.sha256(), b""
    for path in paths:
        with path.open("rb") as handle:
            while block := handle.read(READ_CHUNK):
                if len(head) < head_bytes:
                    head += block[: head_bytes - len(head)]
                digest.update(block)
    return digest.hexdigest(), head


def snapshot_transcript(workspace: Workspace, path: Path, format: str, session_id: str, key: str,
                        max_bytes: int = MAX_TRANSCRIPT_BYTES) -> TranscriptRef:
    """Store what is new in the session's transcript (redacted); returns the event's reference. A first
    snapshot of a transcript over `max_bytes` holds its newest part (and its first line, the header)."""
    folder = workspace.transcripts / check_session_id(session_id)
    if format == "text":
        target = folder / f"{key}.txt"
        redacted = redact(CONTROL.sub("", path.read_text(encoding="utf-8", errors="replace")))
        atomic_write_text(target, redacted)
        return TranscriptRef(path=workspace.relative(target), format="text", sha256=content_hash(redacted))
    with workspace.locked(f"snapshot-{session_id}"):
        size = path.stat().st_size
        with path.open("rb") as handle:
            handle.seek(max(0, size - 1))
            finished = size == 0 or handle.read(1) == b"\n"
        chain = _load_chain(folder)
        if chain is not None and not (chain.source_bytes <= size
                                      and _source_prefix_hash(path, chain.source_bytes) == chain.source_sha256):
            chain = None  # rewritten, or another file of the session: start again
        start = chain.source_bytes if chain else 0
        parts = list(chain.parts) if chain else []
        if size > start:
            target = folder / f"{key}.jsonl"
            pastes = claude_history(path, session_id) if format == "claude-code" else []
            ranges = newest_ranges([path], max_bytes) if start == 0 else [(path, start, size)]  # a big one: its newest part
            lines = (mark_pasted(line, pastes) for line in _lines(path, ranges))
            atomic_write_chunks(target, redact_jsonl_lines(lines))
            relative = workspace.relative(target)
            parts = [p for p in parts if p != relative] + [relative]
        if finished and parts:
            atomic_write_json(folder / CHAIN_FILE, asdict(Chain(size, _source_prefix_hash(path, size), parts)))
        elif not finished:  # a line still being written: this snapshot stands alone, the next starts afresh
            (folder / CHAIN_FILE).unlink(missing_ok=True)
        sha256, _ = snapshot_digest([workspace.resolve_inside(p) for p in parts])
    return TranscriptRef(path=parts[-1], format=format, sha256=sha256, parts=parts[:-1] or None)
