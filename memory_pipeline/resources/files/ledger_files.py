"""The ledger's files: memory/ledger.jsonl (append-only), its archive, index, checkpoint, reports,
the recall pack and the knowledge pages. Every write is atomic; ledger writes hold the workspace
lock "ledger", so two runs never hand out the same event id.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

from memory_pipeline.resources.workspace import Workspace, atomic_write_bytes
from memory_pipeline.stages.ledger.knowledge import merge_generated
from memory_pipeline.stages.ledger.knowledge_changes import change_note, generated_block, with_change_note
from memory_pipeline.stages.ledger.model import LedgerEvent, ParsedLedger, parse_lines
from memory_pipeline.stages.ledger.pack import header_day

LOCK = "ledger"
LOCK_TIMEOUT = 600.0


class LedgerFiles:
    def __init__(self, workspace: Workspace):
        self.workspace = workspace

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        with self.workspace.locked(LOCK, timeout=LOCK_TIMEOUT):
            yield

    # --- the ledger ------------------------------------------------------------------
    def read(self) -> ParsedLedger:
        """Every line parsed; bad lines come back as errors with their numbers."""
        path = self.workspace.ledger_path
        if not path.exists():
            return ParsedLedger()
        return parse_lines(path.read_text(encoding="utf-8").splitlines())

    def append(self, events: list[LedgerEvent]) -> None:
        """Add lines at the end (call under `locked()`): the old bytes are kept as they are, the new
        file replaces the old one atomically, so a crash leaves the old ledger or the new one."""
        if not events:
            return
        path = self.workspace.ledger_path
        old = path.read_bytes() if path.exists() else b""
        if old and not old.endswith(b"\n"):
            old += b"\n"
        new = "".join(e.line() + "\n" for e in events).encode("utf-8")
        atomic_write_bytes(path, old + new)

    def archive_ids(self) -> list[str]:
        ids = []
        for path in self.workspace.ledger_archives():
            for line in path.read_text(encoding="utf-8").splitlines():
                with contextlib.suppress(ValueError, AttributeError):
                    ids.append(json.loads(line)["id"])
        return ids

    def archive_fact_ids(self) -> set[str]:
        found = set()
        for path in self.workspace.ledger_archives():
            for line in path.read_text(encoding="utf-8").splitlines():
                with contextlib.suppress(ValueError, AttributeError, KeyError):
                    if fact := json.loads(line).get("fact_id"):
                        found.add(fact)
        return found

    def rewrite_compacted(self, keep: list[LedgerEvent], archived: list[LedgerEvent]) -> None:
        """Compaction (under `locked()`): the archive first (deduplicated by id), then the ledger. A
        crash in between leaves events in both files, which the next compaction deduplicates."""
        by_year: dict[int, list[LedgerEvent]] = {}
        for event in archived:
            by_year.setdefault(event.ts.year, []).append(event)
        for year, events in sorted(by_year.items()):
            path = self.workspace.ledger_archive_path(year)
            old = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
            known = {json.loads(line).get("id") for line in old if line.strip().startswith("{")}
            lines = old + [e.line() for e in events if e.id not in known]
            atomic_write_bytes(path, ("\n".join(lines) + "\n").encode("utf-8"))
        atomic_write_bytes(self.workspace.ledger_path, "".join(e.line() + "\n" for e in keep).encode("utf-8"))

    # --- small JSON files ------------------------------------------------------------
    def read_json(self, name: str) -> object | None:
        path = self.workspace.ledger_file(name)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except ValueError:
            return {"unreadable": str(path)}

    def write_json(self, name: str, value: object) -> None:
        self.workspace.write_json(self.workspace.ledger_file(name), value)

    def open_loops(self) -> list[str] | None:
        value = self.read_json("index/open-loops.json")
        return [str(v) for v in value] if isinstance(value, list) else None

    # --- the pack and the knowledge base ---------------------------------------------
    def pack_day(self, project: str | None) -> str | None:
        """The day in the header of the project's current pack.md (None when there is none)."""
        return header_day(self.read_pack(project))

    def read_pack(self, project: str | None = "default") -> str | None:
        path = self.workspace.pack_path(project)
        return path.read_text(encoding="utf-8") if path.exists() else None

    def write_pack(self, project: str | None, text: str) -> Path:
        path = self.workspace.pack_path(project)
        self.workspace.write_text(path, text)
        return path

    def write_knowledge(self, pages: dict[str, str], day: str | None = None) -> list[str]:
        """Each page's generated block replaced; hand-written text around it kept; with `day`, what
        changed in an existing block is noted at the bottom. Returns the pages that changed."""
        changed = []
        for relative, generated in pages.items():
            path = self.workspace.knowledge_dir / relative
            old = path.read_text(encoding="utf-8") if path.exists() else ""
            new = merge_generated(old, generated)
            if day and generated_block(old):
                new = with_change_note(new, change_note(generated_block(old), generated_block(new), day))
            if new != old:
                self.workspace.write_text(path, new)
                changed.append(relative)
        return changed


def read_superseded(workspace: Workspace, cached: tuple[int, dict] | None = None) -> tuple[int, dict]:
    """(mtime_ns, map) of memory/index/superseded.json; `cached` is returned when unchanged."""
    path = workspace.ledger_file("index/superseded.json")
    try:
        stamp = path.stat().st_mtime_ns
    except FileNotFoundError:
        return 0, {}
    if cached is not None and cached[0] == stamp:
        return cached
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0, {}
    return stamp, value if isinstance(value, dict) else {}
