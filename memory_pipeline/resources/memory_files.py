"""MEMORY.md, its daily snapshots, REVIEW.md and what was last rendered into it: file I/O only.

MEMORY.md is the user's file: every write re-reads it under a lock right before replacing it
atomically, and starts over when it changed in between, so a hand edit is never overwritten.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from memory_pipeline.errors import ServiceError
from memory_pipeline.resources.workspace import Workspace, atomic_write_text

WRITE_ATTEMPTS = 5


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class MemoryFiles:
    def __init__(self, workspace: Workspace):
        self.workspace = workspace

    # --- MEMORY.md -----------------------------------------------------------------------
    def read_memory(self) -> str:
        path = self.workspace.memory_md
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def update_memory(self, change: Callable[[str], str]) -> tuple[str, str]:
        """(before, after) of applying `change` to MEMORY.md, compare-and-swap under a lock."""
        with self.workspace.locked("memory-md"):
            for _ in range(WRITE_ATTEMPTS):
                before = self.read_memory()
                after = change(before)
                if after == before:
                    return before, after
                if self.read_memory() != before:  # edited while we merged: merge into the new text
                    continue
                atomic_write_text(self.workspace.memory_md, after)
                return before, after
        raise ServiceError(f"MEMORY.md changed {WRITE_ATTEMPTS} times while promoting; nothing was written, try again")

    # --- snapshots -----------------------------------------------------------------------
    @property
    def snapshots_dir(self) -> Path:
        return self.workspace.state_path("snapshots")

    def snapshot_path(self, day: str) -> Path:
        return self.snapshots_dir / f"{day}.md"

    def write_snapshot(self, day: str) -> Path:
        """Copy MEMORY.md as it is now to state/memory_snapshots/<day>.md."""
        path = self.snapshot_path(day)
        atomic_write_text(path, self.read_memory())
        return path

    def previous_snapshot(self, day: str) -> tuple[str, str] | None:
        """(day, text) of the latest snapshot strictly before `day`."""
        if not self.snapshots_dir.is_dir():
            return None
        days = sorted(p.stem for p in self.snapshots_dir.glob("*.md") if p.stem < day)
        if not days:
            return None
        return days[-1], self.snapshot_path(days[-1]).read_text(encoding="utf-8")

    # --- REVIEW.md -----------------------------------------------------------------------
    @property
    def rendered_state_path(self) -> Path:
        return self.workspace.state_path("review") / "rendered.json"

    def read_review(self) -> str | None:
        path = self.workspace.review_md
        return path.read_text(encoding="utf-8") if path.exists() else None

    def rendered(self) -> dict:
        """{"sha256": ..., "proposals": {id: text}} of the last REVIEW.md this pipeline wrote."""
        try:
            return json.loads(self.rendered_state_path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return {"sha256": "", "proposals": {}}

    def write_review(self, text: str, proposals: dict[str, str], expected: str | None = None) -> bool:
        """Write REVIEW.md unless it no longer holds `expected` (the user saved meanwhile)."""
        current = self.read_review()
        if expected is not None and current is not None and current != expected:
            return False
        if current != text:
            atomic_write_text(self.workspace.review_md, text)
        self.workspace.write_json(self.rendered_state_path, {"sha256": sha256_text(text), "proposals": proposals})
        return True

    def backup_review(self, text: str, now: datetime) -> Path:
        path = self.workspace.state_path("review") / "backups" / f"REVIEW-{now.strftime('%Y%m%dT%H%M%S%f')}.md"
        atomic_write_text(path, text)
        return path
