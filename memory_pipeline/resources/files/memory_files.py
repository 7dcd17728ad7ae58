"""MEMORY.md, its daily snapshots, REVIEW.md and what was last rendered into it: file I/O only.

MEMORY.md and REVIEW.md are the user's files: every write goes through user_files.py (an atomic
exchange, then a check of what it displaced and of what the file holds, each read once no editor
has the file open for writing), so a hand edit saved in place or by rename during a promotion is
merged, never overwritten. Both are read
tolerantly: a byte that is not UTF-8 is kept (and shown as U+FFFD), never a crash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from memory_pipeline.resources.files.user_files import (
    decode,
    displayable,
    read_snapshot,
    replace_if_unchanged,
    update_user_file,
)
from memory_pipeline.resources.workspace import Workspace, atomic_write_bytes, atomic_write_text


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogateescape")).hexdigest()


def bad_bytes(path: Path) -> str | None:
    """One line naming the first byte of `path` that is not UTF-8, or None."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        count = len(data.decode("utf-8", errors="replace")) - len(data.decode("utf-8", errors="ignore"))
        return (f"{path.name}: byte 0x{data[exc.start]:02x} at line {line}, column {column} is not UTF-8 "
                f"({count} such byte{'s' if count != 1 else ''}); shown as \ufffd, the bytes are kept")
    return None


class MemoryFiles:
    def __init__(self, workspace: Workspace):
        self.workspace = workspace

    # --- MEMORY.md -----------------------------------------------------------------------
    def read_memory(self) -> str:
        """MEMORY.md for reading (bad bytes shown as U+FFFD; see bad_bytes for where)."""
        text = read_snapshot(self.workspace.memory_md).text
        return displayable(text or "")

    def update_memory(self, change: Callable[[str], str]) -> tuple[str, str]:
        """(base, after) of applying `change` to MEMORY.md's newest text, verified in the file."""
        with self.workspace.locked("memory-md"):
            return update_user_file(self.workspace.memory_md, change)

    # --- snapshots -----------------------------------------------------------------------
    @property
    def snapshots_dir(self) -> Path:
        return self.workspace.state_path("snapshots")

    def snapshot_path(self, day: str) -> Path:
        return self.snapshots_dir / f"{day}.md"

    def write_snapshot(self, day: str) -> Path:
        """Copy MEMORY.md as it is now to state/memory_snapshots/<day>.md."""
        path = self.snapshot_path(day)
        data = self.workspace.memory_md.read_bytes() if self.workspace.memory_md.exists() else b""
        atomic_write_bytes(path, data)
        return path

    def previous_snapshot(self, day: str) -> tuple[str, str] | None:
        """(day, text) of the latest snapshot strictly before `day`."""
        if not self.snapshots_dir.is_dir():
            return None
        days = sorted(p.stem for p in self.snapshots_dir.glob("*.md") if p.stem < day)
        if not days:
            return None
        return days[-1], displayable(decode(self.snapshot_path(days[-1]).read_bytes()))

    # --- REVIEW.md -----------------------------------------------------------------------
    @property
    def rendered_state_path(self) -> Path:
        return self.workspace.state_path("review") / "rendered.json"

    def read_review(self) -> str | None:
        text = read_snapshot(self.workspace.review_md).text
        return None if text is None else displayable(text)

    def rendered(self) -> dict:
        """{"sha256": ..., "proposals": {id: text}} of the last REVIEW.md this pipeline wrote."""
        try:
            return json.loads(self.rendered_state_path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return {"sha256": "", "proposals": {}}

    def write_review(self, text: str, proposals: dict[str, str], expected: str | None = None) -> bool:
        """Write REVIEW.md unless it no longer holds `expected` (the user saved meanwhile)."""
        if not replace_if_unchanged(self.workspace.review_md, text, expected):
            return False
        self.workspace.write_json(self.rendered_state_path, {"sha256": sha256_text(text), "proposals": proposals})
        return True

    def backup_review(self, text: str, now: datetime) -> Path:
        path = self.workspace.state_path("review") / "backups" / f"REVIEW-{now.strftime('%Y%m%dT%H%M%S%f')}.md"
        atomic_write_text(path, text)
        return path
