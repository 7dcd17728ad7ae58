"""What a briefing would say twice (pure): the recall pack's lines that restate a note shown above it.

A briefing shows the 🔴 notes of today and yesterday, then the recall pack; the pack's newest events
come from those same notes, so an active day's statements were each read twice ("I would only want
e2e tests for AgentSession…" in the notes, again under TODAY'S FOCUS or CONTEXT). A line of those two
parts (what is recent: the notes' own subject) whose statement opens with the words of a shown note
is left out of the briefing's copy of the pack; its part says how many are in the notes (pack.md
itself is unchanged, and `memory-pipeline ledger` lists every event). The other parts keep theirs:
that a note is a P0 constraint, an open commitment or a procedure is news the notes do not tell.
The same holds for the line "Last session's task" above the notes: a task that is a note's request
points at it instead of quoting it again (`task_note`).
"""

from __future__ import annotations

import re

from memory_pipeline.stages.ledger.pack import SECTIONS
from memory_pipeline.stages.observe.format import NO_VALUE, word_list

# "* 🔴 (22:50) (said by user) I would only want …" (stages/observe/format.format_fact)
_NOTE = re.compile(r"^\* 🔴 (?:\((?P<time>\d{1,2}:\d{2})\) )?(?:\(said by [^)]*\) )?(?P<text>.+)$")
# the Observer's current task as the briefing holds it: "Primary: … Secondary: …" on one line
_TASK = re.compile(r"^\s*Primary:\s*(?P<primary>.*?)(?:\s+Secondary:\s*(?P<secondary>.*))?$", re.S)
# "- [EVT-20251209-002] I would only want … (e2e) (said by user)" (stages/ledger/pack._line)
_PACK_LINE = re.compile(r"^- \[[^\]]+\] (?P<text>.+)$")
OPENING_WORDS = 12  # a note's first words a pack line must open with to restate it
MIN_WORDS = 3  # a shorter note ("Done.") is no statement to match
RECENT = tuple(section.heading.lstrip("#").strip() for section in SECTIONS if section.key in ("focus", "context"))


def _openings(notes: str) -> list[tuple[tuple[str, ...], str]]:
    """The opening words of each 🔴 note line in `notes`, with its time ("" when it has none)."""
    found = []
    for line in notes.splitlines():
        if (note := _NOTE.match(line.strip())) and len(words := word_list(note["text"])) >= MIN_WORDS:
            found.append((tuple(words[:OPENING_WORDS]), note["time"] or ""))
    return found


def note_openings(notes: str) -> set[tuple[str, ...]]:
    """The opening words of each 🔴 note line in `notes`."""
    return {opening for opening, _ in _openings(notes)}


def task_note(task: str, notes: str) -> str | None:
    """The time of the 🔴 note in `notes` that the current task's primary request opens with ("00:37";
    "" for a note without a time), None when no note states it. The offline Observer's task is the
    session's last requests, which its last notes already quote; a second request ("Secondary: …")
    must be in the notes as well."""
    parts = _TASK.match(task)
    words = word_list(parts["primary"] if parts else task)
    at = next((time for opening, time in _openings(notes) if tuple(words[:len(opening)]) == opening), None)
    secondary = (parts["secondary"] or "") if parts else ""
    also = word_list(secondary)
    if at is None or not also or secondary.strip().lower().strip(".") in NO_VALUE:
        return at
    said = " ".join(word_list(notes))
    return at if f" {' '.join(also[:OPENING_WORDS])} " in f" {said} " else None  # the other request is shown too


def restates(pack_line: str, openings: set[tuple[str, ...]]) -> bool:
    """Whether a pack event line's statement opens with the words of one of the notes."""
    if not (line := _PACK_LINE.match(pack_line.strip())):
        return False
    words = word_list(line["text"])
    return any(tuple(words[:len(opening)]) == opening for opening in openings)


def without_notes(pack: str, notes: str) -> tuple[str, int]:
    """The pack without the lines of its recent parts that restate a note; each part that lost lines
    ends with one saying how many are in the notes above (a part left with none keeps just that line).
    Returns the text and how many lines were left out."""
    openings = note_openings(notes)
    if not openings:
        return pack, 0
    kept: list[str] = []
    dropped = total = listed = 0
    recent = False

    def close() -> None:
        nonlocal dropped, listed
        if dropped:
            while kept and not kept[-1].strip():
                kept.pop()
            kept.extend([f"_({dropped}{' more' if listed else ''} in the notes above)_", ""])
        dropped = listed = 0

    for line in pack.splitlines():
        if line.lstrip().startswith("#"):
            close()
            recent = line.lstrip("#").strip() in RECENT
        if recent and restates(line, openings):
            dropped += 1
            total += 1
            continue
        listed += bool(_PACK_LINE.match(line.strip()))
        kept.append(line)
    close()
    return "\n".join(kept).rstrip("\n") + ("\n" if pack.endswith("\n") else ""), total
