"""MEMORY.md, pure: append promoted lines to their sections without touching any existing line.

One file holds every project: a section whose heading names a project (`## Hard Rules — shop`)
is that project's; a plain section (`## User`, `## Hard Rules`) applies everywhere. A session
reads the plain sections and its own project's (`for_project`), never another project's.

A promoted line reads `- (YYYY-MM-DD) text <!-- p-YYYYMMDD-NNN-xxxx -->`: the date it was approved,
the approved text, and the proposal (or friction fix, f-YYYYMMDD-NNN-xxxx; older ids lack the
`-xxxx`) id as a comment so every line traces back to its proposal
and a promotion that is repeated (a crash, a second process) finds its line already there. Only a
marker at the end of a line is an id: the text before it went through `stages/untrusted.inline`, so
a marker quoted from a transcript is not one.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache

from memory_pipeline.stages.alternatives import jobs_named, replaces_alternative
from memory_pipeline.stages.offline.observer_update import replaced_terms, states_update
from memory_pipeline.stages.proposal_ids import ID_TEXT
from memory_pipeline.stages.recall.supersession import subject_words, values
from memory_pipeline.stages.untrusted import inline, project_name

MEMORY_TITLE = "# MEMORY"
_HEADING = re.compile(r"^##\s+(?P<name>.+?)\s*$")
_MARKER = re.compile(rf"[ \t]*<!--[ \t]*({ID_TEXT})[ \t]*-->[ \t]*$", re.MULTILINE)
_DATE_PREFIX = re.compile(r"^\(\d{4}-\d{2}-\d{2}\)\s*")
SECTION_ALIASES = {"user": "User", "the user": "User", "joel": "User", "hard rules": "Hard Rules",
                   "system architecture": "System Architecture", "architecture": "System Architecture",
                   "patterns": "Patterns", "lessons": "Lessons"}


def promoted_line(day: str, text: str, pid: str) -> str:
    return f"- ({day}) {inline(text)} <!-- {pid} -->"


def promoted_ids(text: str) -> set[str]:
    """Ids of the proposals whose lines MEMORY.md holds (each line's last marker)."""
    return set(_MARKER.findall(text))


def line_id(line: str) -> str | None:
    """The id a promoted line ends with, or None for a line written by hand."""
    found = _MARKER.search(line)
    return found.group(1) if found else None


def without_marker(text: str) -> str:
    """`text` with every line's id marker removed (what a reader of MEMORY.md needs)."""
    return _MARKER.sub("", text)


def bullet_texts(text: str) -> list[str]:
    """The text of every bullet, without its date prefix or id marker (for duplicate checks)."""
    found = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("- ", "* ")):
            body = _MARKER.sub("", stripped[2:])
            body = _DATE_PREFIX.sub("", body.strip()).strip()
            if body:
                found.append(body)
    return found


PROJECT_MARK = " — "


def section_heading(section: str, project: str = "") -> str:
    """The heading text of `section` for `project` ("" = the plain section, every project)."""
    project = project_name(project)
    return f"{section}{PROJECT_MARK}{project}" if project else section


def heading_project(heading: str) -> str:
    """The project a section heading names ("" for a plain section)."""
    return heading.rsplit(PROJECT_MARK, 1)[1].strip() if PROJECT_MARK in heading else ""


def _section_of(heading: str) -> str:
    base, mark, project = heading.strip().partition(PROJECT_MARK)
    key = " ".join(base.lower().split())
    name = SECTION_ALIASES.get(key, base.strip())
    return f"{name}{PROJECT_MARK}{project.strip()}" if mark else name


def for_project(text: str, project: str | None) -> str:
    """What a session in `project` reads of MEMORY.md: everything but other projects' sections
    (None: everything; "": only the plain sections)."""
    if project is None:
        return text
    kept, keep = [], True
    for line in text.splitlines():
        if match := _HEADING.match(line):
            owner = heading_project(match.group("name"))
            keep = not owner or owner == project
        if keep:
            kept.append(line)
    return "\n".join(kept).rstrip("\n") + ("\n" if kept else "")


def _sections(lines: list[str]) -> dict[str, tuple[int, int]]:
    """Section name -> (heading index, end index exclusive); the first heading of a name wins."""
    spans: dict[str, tuple[int, int]] = {}
    heads = [(i, _section_of(m.group("name"))) for i, line in enumerate(lines) if (m := _HEADING.match(line))]
    for number, (index, name) in enumerate(heads):
        end = heads[number + 1][0] if number + 1 < len(heads) else len(lines)
        spans.setdefault(name, (index, end))
    return spans


def append_to_sections(text: str, additions: list[tuple[str, str]]) -> str:
    """Insert each (section, line) after the last non-blank line of its section, creating the
    section at the end when missing. Existing lines are never changed."""
    lines = text.splitlines()
    if not any(line.strip() for line in lines):
        lines = [MEMORY_TITLE, ""]
    for section, line in additions:
        spans = _sections(lines)
        if section not in spans:
            while lines and not lines[-1].strip():
                lines.pop()
            lines += ["", f"## {section}", "", line]
            continue
        start, end = spans[section]
        last = end - 1
        while last > start and not lines[last].strip():
            last -= 1
        insert_at = last + 1
        if last == start:  # an empty section: keep one blank line under the heading
            lines.insert(start + 1, "")
            insert_at = start + 2
        lines.insert(insert_at, line)
    return "\n".join(lines).rstrip("\n") + "\n"


def lines_lost(previous: str, current: str) -> list[str]:
    """Non-blank lines of `previous` that `current` no longer holds (order ignored)."""
    remaining: dict[str, int] = {}
    for line in current.splitlines():
        remaining[line.rstrip()] = remaining.get(line.rstrip(), 0) + 1
    lost = []
    for line in previous.splitlines():
        key = line.rstrip()
        if not key.strip():
            continue
        if remaining.get(key, 0) > 0:
            remaining[key] -= 1
        else:
            lost.append(key)
    return lost


def untraceable_ids(current: str, previous: str, approved_ids: set[str]) -> list[str]:
    """Ids on lines added since `previous` that name no approved proposal."""
    return sorted(promoted_ids(current) - promoted_ids(previous) - approved_ids)


def memory_items(text: str) -> list[tuple[str, str]]:
    """(id, text) of every bullet: the proposal id it was promoted from, or `md-<hash>` for a
    line written by hand (echo/fizzle judges both)."""
    items = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("- ", "* ")):
            found = _MARKER.findall(stripped)
            body = _DATE_PREFIX.sub("", _MARKER.sub("", stripped[2:]).strip()).strip()
            if body:
                items.append((found[0] if found else "md-" + hashlib.sha256(body.encode()).hexdigest()[:12], body))
    return items


# --- a proposal that changes what a line states -----------------------------------------------

_NAMED_VALUE = re.compile(r"\b([a-z][\w.-]*)\s+v?(\d+(?:\.\d+)*)\b", re.IGNORECASE)  # "Postgres 16", "python 3.11"


def _line_body(line: str) -> str:
    stripped = line.strip()
    return _DATE_PREFIX.sub("", _MARKER.sub("", stripped[2:]).strip()).strip() if stripped.startswith(("- ", "* ")) else ""


@dataclass(frozen=True)
class _Said:
    """What `changes_value` reads of a statement, read once (a line is compared with every pending proposal)."""

    named: frozenset[tuple[str, str]]  # a name and its number: ("postgres", "16")
    subject: frozenset[str]
    values: frozenset[str]
    words: tuple[str, ...]
    jobs: frozenset[str]  # of the tools it names (stages/alternatives.py)


@lru_cache(maxsize=4096)
def _said(text: str) -> _Said:
    return _Said(named=frozenset((n.lower(), v) for n, v in _NAMED_VALUE.findall(text) if subject_words(n)),  # not "of 10"
                 subject=frozenset(subject_words(text)), values=frozenset(values(text)),
                 words=tuple(w.lower().rstrip(".-") for w in _WORDS.findall(text)), jobs=jobs_named(text))


def changes_value(old: str, new: str) -> bool:
    """`new` states another value of what `old` states: a name followed by another number
    ("Postgres 16" → "Postgres 17"), or two shared subject words and values that differ."""
    was, said = _said(old), _said(new)
    if not (said.named or said.values or states_update(new) is not None):
        return False  # no value named and no update: nothing below can hold (each statement is read once: `_said`)
    if not (was.subject & said.subject or was.jobs & said.jobs or was.words[:3] == said.words[:3]):
        return False  # nothing in common: each rule below needs a shared word, the same opening or a tool's job
    names_new = {n for n, _ in said.named}
    changed = {name for name, value in was.named if name in names_new and (name, value) not in said.named}
    words_old, words_new = was.subject - changed, said.subject - changed
    if changed and (words_old & words_new or words_new <= words_old):  # about the same thing, not another's
        return True
    gone, came = was.values - said.values, said.values - was.values
    if gone and came and len(was.subject & said.subject) >= 2:
        return True
    return _updates(old, new)


_WORDS = re.compile(r"[a-z0-9][\w.-]*", re.IGNORECASE)
_VERB = re.compile(r"go|goes|runs?|lives?|points?|deploys?|builds?|ships?|uses?|calls?|reads?|writes?|sends?|"
                   r"hosts?|listens?|serves?|stores?|sits?|targets?|depends")


def _updates(old: str, new: str) -> bool:
    """`new` is an update of the work (stages/offline/observer_update.py) that names `old`'s value as the one it
    replaces ("Tests run on Vitest these days, not Jest" / "Our tests run on Jest"), or says the same of the same
    thing with another value ("Deploys go through Argo CD now" / "Deploys go through Jenkins"), or another tool of
    the job `old` says is used ("We use pnpm now" / "We use npm for this repo": `stages/alternatives.py`)."""
    if states_update(new) is None:
        return False
    if replaces_alternative(new, old):
        return True
    said, was = _said(new), _said(old)
    if replaced_terms(new) & set(was.words) and was.subject & said.subject:
        return True
    shared = next((n for n, (a, b) in enumerate(zip(said.words, was.words, strict=False)) if a != b),
                  min(len(said.words), len(was.words)))
    # the same subject and verb ("deploys go through"), then another value: not "the orders service" and another verb
    return 3 <= shared < min(len(said.words), len(was.words)) and any(_VERB.fullmatch(w) for w in said.words[1:shared])


def contradicted_line(text: str, proposal_text: str, project: str) -> str | None:
    """The MEMORY.md line (as written) a session in `project` reads whose statement `proposal_text`
    changes (a version, a port, a number): what approving it should replace, not sit beside."""
    return next(iter(_changed_by(_bodies(for_project(text, project or "")), proposal_text)), None)


def _bodies(text: str) -> list[tuple[str, str]]:
    """(line as written, its statement) of each bullet of `text`."""
    return [(line, body) for line in text.splitlines() if (body := _line_body(line))]


def _changed_by(bodies: list[tuple[str, str]], proposal_text: str) -> list[str]:
    """The lines of `bodies` whose statement `proposal_text` changes, in order."""
    proposal = proposal_text.strip()
    return [line for line, body in bodies if body != proposal and changes_value(body, proposal_text)]


# what a briefing says after a MEMORY.md line that a pending proposal changes
CHANGED_NOTE = " ⚠️ _may be out of date: a pending proposal in REVIEW.md changes it (see the recall pack)_"


def flag_changed(text: str, proposals: list[str]) -> str:
    """`text` (MEMORY.md as a session reads it: `for_project`) with `CHANGED_NOTE` after each line that one of the
    pending `proposals` changes (`contradicted_line`): the reviewed line stays as the user approved it, and the
    agent reading it is told that a later session said otherwise. The proposal's words are not put in it."""
    bodies = _bodies(text)
    changed = {found[0] for proposal in proposals if (found := _changed_by(bodies, proposal))}
    return "\n".join(_noted(line) if line in changed else line for line in text.split("\n"))


def _noted(line: str) -> str:
    """`line` with `CHANGED_NOTE` before its id marker (which `without_marker` takes off the line's end)."""
    marker = _MARKER.search(line)
    return line[:marker.start()] + CHANGED_NOTE + marker.group(0) if marker else line + CHANGED_NOTE


def replace_line(text: str, old_line: str, new_line: str) -> str | None:
    """`text` with its first line equal to `old_line` (trailing spaces aside) replaced by
    `new_line`; None when no line is (the user changed it meanwhile)."""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if line.rstrip() == old_line.rstrip():
            lines[number] = new_line
            return "\n".join(lines).rstrip("\n") + "\n"
    return None
