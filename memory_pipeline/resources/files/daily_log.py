"""The daily log memory/YYYY-MM-DD.md: human-readable, append-only, written atomically.

Every generated section ends with a marker comment naming its key, so appending is idempotent:
a section already present with the same version is left alone, one with an older version is
replaced in place (a backfill after a prompt change), and text around it is never touched.
"""

from __future__ import annotations

import re

from memory_pipeline.resources.workspace import Workspace

_MARKER = re.compile(r"<!-- (?P<kind>\w+): (?P<key>[^ ]+)(?P<rest>[^>]*)-->")


def _header(day: str) -> str:
    return f"# {day}\n\n"


def marker(kind: str, key: str, version: str = "") -> str:
    suffix = f" version: {version}" if version else ""
    return f"<!-- {kind}: {key}{suffix} -->"


def _find_section(text: str, kind: str, key: str) -> tuple[int, int, str] | None:
    """(start, end, version) of the section whose marker names `key`; start is its '### ' line."""
    for match in _MARKER.finditer(text):
        if match.group("kind") == kind and match.group("key") == key:
            version = re.search(r"version: (\S+)", match.group("rest") or "")
            start = text.rfind("\n### ", 0, match.start())
            start = 0 if start < 0 else start + 1
            return start, match.end(), version.group(1) if version else ""
    return None


def upsert_section(text: str, day: str, section: str, *, kind: str, key: str, version: str = "") -> str:
    """Add `section` (which must end with its marker) unless present at this version."""
    body = section.rstrip("\n") + "\n"
    found = _find_section(text, kind, key)
    if found is None:
        base = text if text.strip() else _header(day)
        return base.rstrip("\n") + "\n\n" + body
    start, end, old_version = found
    if old_version == version:
        return text
    return text[:start] + body.rstrip("\n") + text[end:]


class DailyLog:
    def __init__(self, workspace: Workspace):
        self.workspace = workspace

    def read(self, day: str) -> str:
        path = self.workspace.daily_log(day)
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def upsert(self, day: str, section: str, *, kind: str, key: str, version: str = "") -> None:
        path = self.workspace.daily_log(day)
        self.workspace.update_text(
            path,
            lambda old: upsert_section(old, day, section, kind=kind, key=key, version=version),
            lock_name=f"daily-log-{day}",
        )

    def append(self, day: str, section: str) -> None:
        """Append a section that has no identity of its own (review outcomes, notes)."""
        path = self.workspace.daily_log(day)

        def add(old: str) -> str:
            base = old if old.strip() else _header(day)
            return base.rstrip("\n") + "\n\n" + section.rstrip("\n") + "\n"

        self.workspace.update_text(path, add, lock_name=f"daily-log-{day}")
