"""The recall pack (seed 001, Layer 4): one deterministic document, fixed sections, word budgets.

Same ledger + same day = same pack. Superseded events and closed commitments never appear;
expired P2/P3 are left out, and so is what the agent read (an event whose words came only from tool
output, a file or a web page); each line derived from a transcript says who said it (`said by`);
binding types never decay out; stale facts carry ⚠️ STALE; two active events about one entity that
disagree are both shown under a ⚠️ CONFLICT line.
A commitment open longer than STALE_COMMITMENT_DAYS with no news is listed after the live ones,
marked ⚠️ STALE (close or confirm it); the three oldest open ones are always listed, newer ones
giving way when the budget is short; PROCEDURES holds no record of a command that ran ("Ran `git
commit …`"), only ways of doing something. Total ≤ 3,000 words. A section with nothing in it shows no
heading: the pack's last line names the empty ones.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from memory_pipeline.stages.guard import hold_reasons
from memory_pipeline.stages.ledger.classify import RAN, plain_text
from memory_pipeline.stages.ledger.conflicts import find_conflicts
from memory_pipeline.stages.ledger.decay import age_days, freshness
from memory_pipeline.stages.ledger.derive import USER_LEVEL_TAG
from memory_pipeline.stages.ledger.model import DEFAULT_PROJECT, LedgerEvent, snake_entity
from memory_pipeline.stages.ledger.state import LedgerState
from memory_pipeline.stages.provenance import from_tool_output, said_by, user_typed
from memory_pipeline.stages.untrusted import inline

TOTAL_WORDS = 3000


@dataclass(frozen=True)
class Section:
    """One part of the pack: its key, its heading, its budget in words, and what the closing line calls it when
    nothing is in it."""

    key: str
    heading: str
    budget: int
    empty_name: str


# in the fixed order
SECTIONS: tuple[Section, ...] = (
    Section("p0", "## 🔴 P0 CONSTRAINTS — Rules that must never be violated", 200, "P0 constraints"),
    Section("mantra", "## 🎯 THE MANTRA — Core mission", 20, "mantra (tag an event `mantra`)"),
    Section("commitments", "## 📋 OPEN COMMITMENTS — Oldest first, with status and age", 500, "open commitments"),
    Section("waiting", "## ⏳ WAITING ON — External dependencies", 150, "waiting on"),
    Section("focus", "## 🎯 TODAY'S FOCUS — Priority work for the day", 300, "today's focus"),
    Section("context", "## 🧠 CONTEXT — Current projects, recent decisions, state", 800, "context"),
    Section("procedures", "## 📚 PROCEDURES — Key operational procedures", 500, "procedures"),
    Section("accounts", "## 🔑 ACCOUNTS — Quick reference account IDs", 200, "accounts"),
)
OVERFLOW_SECTIONS = ("p0", "commitments")  # may spend the buffer
MAX_ITEM_WORDS = 60
FOCUS_ITEMS = 5
CONFLICT_SCOPE = 500  # conflicts are looked for among the most relevant context candidates
RESERVE = 12  # words kept for the "… N more not shown" line
PRIORITY_RANK = {"P0": 0, "P1": 1, "P2": 2, "P3": 3}
STALE_COMMITMENT_DAYS = 30
OLDEST_COMMITMENTS = 3  # the oldest open commitments are always in the pack, however many newer ones wait


@dataclass
class PackResult:
    project: str | None  # None: every project
    day: str
    text: str
    words: int
    included: set[str] = field(default_factory=set)
    omitted: dict[str, list[str]] = field(default_factory=dict)  # section -> ids left out for budget
    excluded_expired: list[str] = field(default_factory=list)
    binding_decayed: list[str] = field(default_factory=list)  # must stay empty
    conflicts: list[tuple[str, str]] = field(default_factory=list)
    section_words: dict[str, int] = field(default_factory=dict)
    active: list[LedgerEvent] = field(default_factory=list)


def words(text: str) -> int:
    return len(text.split())


def _clip(text: str, limit: int = MAX_ITEM_WORDS) -> str:
    parts = " ".join(text.split()).split(" ")
    return " ".join(parts) if len(parts) <= limit else " ".join(parts[:limit]) + " …"


def shown(content: str, limit: int = MAX_ITEM_WORDS) -> str:
    """An event's text as the pack may show it in any section: one line, no structure, clipped;
    text the guard holds (a dangerous command, an instruction to the agent) withheld."""
    if reasons := hold_reasons(content):
        return f"_(withheld: held for review: {'; '.join(reasons)})_"
    return inline(_clip(content, limit))


def said(event: LedgerEvent) -> str:
    """" (said by user+assistant)" for an event derived from a transcript: who said the words it
    came from (a reader of the pack is told, as in recall); "" for one a person added."""
    return f" (said by {said_by(event.said_by)})" if event.said_by else ""


def _line(event: LedgerEvent, today: date, note: str = "", verified: datetime | None = None) -> str:
    """One event's line, its id kept (so `ledger` and `trace` find a withheld one too)."""
    flag = " ⚠️ STALE" if freshness(event, today, verified) == "stale" else ""
    about = f" ({event.entity})" if _unnamed(event) and not hold_reasons(event.content) else ""
    return f"- [{event.id}] {shown(event.content)}{about}{said(event)}{note}{flag}"


def _unnamed(event: LedgerEvent) -> bool:
    """The event has an entity its words do not already name ("Our tests run on Vitest. (vitest)" says it twice),
    both read in the entity's own form (`snake_entity`: "Fly.io" names fly_io)."""
    if not event.entity:
        return False
    return f"_{snake_entity(event.entity)}_" not in f"_{snake_entity(event.content)}_"


def _recency(event: LedgerEvent, today: date) -> int:
    age = age_days(event, today)
    return 0 if age <= 2 else 1 if age <= 7 else 2 if age <= 31 else 3


class _Writer:
    def __init__(self, today: date, verified: Callable[[LedgerEvent], datetime] = lambda e: e.ts) -> None:
        self.today = today
        self.verified = verified  # when an event was last said or spoken of again (`LedgerState.verified`)
        self.lines: dict[str, list[str]] = {section.key: [] for section in SECTIONS}
        self.used: dict[str, int] = {section.key: 0 for section in SECTIONS}
        self.shown: set[str] = set()
        self.omitted: dict[str, list[str]] = {}

    def add(self, section: str, text: str, room: int, ids: tuple[str, ...] = ()) -> bool:
        cost = words(text)
        if self.used[section] + cost > room:
            self.omitted.setdefault(section, []).extend(ids)
            return False
        self.lines[section].append(text)
        self.used[section] += cost
        self.shown.update(ids)
        return True


def pack_header(day: str, project: str | None) -> str:
    suffix = ("" if project == DEFAULT_PROJECT else " · all projects" if project is None
              else " · user-level only" if not project else f" · {project}")
    return f"# Recall Pack — {day}{suffix}"


def header_day(text: str | None) -> str | None:
    """The day `pack_header` wrote on a pack's first line (None when the text has no dated header)."""
    first = (text or "").split("\n", 1)[0]
    day = first.split("— ", 1)[1][:10] if "— " in first else ""
    return day if re.fullmatch(r"\d{4}-\d{2}-\d{2}", day) else None


def build_pack(events: list[LedgerEvent], today: date, *, project: str | None = DEFAULT_PROJECT,
               warnings: list[str] | None = None) -> PackResult:
    """The pack for `project` (None: every project) as of `today`, from the events recorded up to that day."""
    mine = [e for e in events if (project is None or e.project == project or USER_LEVEL_TAG in e.tags)
            and e.ts.date() <= today]
    state = LedgerState.of(mine)
    active = state.active()
    expired = [e.id for e in active if freshness(e, today, state.verified(e)) == "expired"]
    gone = set(expired)
    # what the agent read (tool output, files, web pages) is never in the pack: it reaches an agent only by recall
    live = [e for e in active if e.id not in gone and not from_tool_output(e.said_by)]
    header_words = words(pack_header(today.isoformat(), project)) + sum(words(section.heading) for section in SECTIONS)
    # every heading and a word per section kept back: an empty section's heading is not shown, and what it kept
    # back is more than its name on the closing line takes
    buffer = TOTAL_WORDS - sum(section.budget for section in SECTIONS) - header_words - len(SECTIONS)
    w = _Writer(today, state.verified)
    budgets = {section.key: section.budget for section in SECTIONS}
    loops = sorted((state.events[i] for i in state.open_loops if i not in gone), key=lambda e: (e.ts, e.id))
    conflicts = find_conflicts(_by_relevance([e for e in live if e.type != "commitment"], today)[:CONFLICT_SCOPE])
    _fill(w, budgets, buffer, live, loops, today, {i for pair in conflicts for i in pair})
    _context(w, budgets, live, today, warnings or [], conflicts)
    text = _render(w, today.isoformat(), project)
    return PackResult(project=project, day=today.isoformat(), text=text, words=words(text), included=w.shown,
                      omitted=w.omitted, excluded_expired=expired,
                      binding_decayed=[i for i in expired if state.events[i].binding], conflicts=conflicts,
                      section_words=dict(w.used), active=live)


def _spend(w: _Writer, key: str, budgets: dict[str, int], buffer: int, items, today: date,
           note=lambda e: "") -> None:
    """Add items in order while they fit; sections in OVERFLOW_SECTIONS may borrow from the shared
    buffer. What does not fit is counted on one closing line (its words are reserved)."""
    def room() -> int:
        if key not in OVERFLOW_SECTIONS:
            return budgets[key] - RESERVE
        borrowed = sum(max(0, w.used[k] - (budgets[k] - RESERVE)) for k in OVERFLOW_SECTIONS if k != key)
        return budgets[key] - RESERVE + max(0, buffer - borrowed)

    for n, event in enumerate(items):
        if not w.add(key, _line(event, today, note(event), w.verified(event)), room(), (event.id,)):
            rest = [e.id for e in items[n + 1:]]
            w.omitted.setdefault(key, []).extend(rest)
            w.lines[key].append(f"- … {len(rest) + 1} more not shown (word budget); see `memory-pipeline ledger show`")
            w.used[key] += words(w.lines[key][-1])
            break


def _fill(w: _Writer, budgets, buffer: int, live, loops, today: date, conflicted: set[str]) -> None:
    p0 = sorted((e for e in live if e.priority == "P0" and e.type != "commitment"), key=lambda e: (e.ts, e.id))
    _spend(w, "p0", budgets, buffer, p0, today)
    mantra = max((e for e in live if "mantra" in e.tags), key=lambda e: (e.ts, e.id), default=None)
    if mantra:
        w.add("mantra", shown(mantra.content, 18) + said(mantra), budgets["mantra"], (mantra.id,))
    stale = {e.id for e in loops if age_days(e, today, w.verified(e)) > STALE_COMMITMENT_DAYS}
    note = lambda e: f" — open, {age_days(e, today)} days ({e.priority})" + (  # noqa: E731
        " ⚠️ STALE: no news since; close or confirm it" if e.id in stale else "")
    ordered = sorted(loops, key=lambda e: e.id in stale)  # live ones first, the stale after them
    _spend(w, "commitments", budgets, buffer, with_oldest(w, budgets, buffer, ordered, loops, today, note), today,
           note=note)
    waiting = [e for e in loops if "waiting" in e.tags]
    for event in waiting:
        w.add("waiting", f"- {event.entity or 'external'}: {shown(event.content, 20)}{said(event)}", budgets["waiting"])
    recent = today - timedelta(days=1)
    focus = sorted((e for e in live if e.id not in w.shown and e.id not in conflicted and e.type != "commitment"
                    and e.ts.date() >= recent and e.priority in ("P0", "P1") and is_work(e)),
                   key=lambda e: (durable_value(e), -e.ts.timestamp(), e.id))[:FOCUS_ITEMS]
    _spend(w, "focus", budgets, buffer, focus, today)
    procedures = sorted((e for e in live if e.type == "procedure" and e.id not in w.shown and not ran(e)),
                        key=lambda e: (PRIORITY_RANK[e.priority], -e.ts.timestamp(), e.id))
    _spend(w, "procedures", budgets, buffer, procedures, today)
    accounts = sorted((e for e in live if "account" in e.tags and e.id not in w.shown), key=lambda e: (e.ts, e.id))
    for event in accounts:
        w.add("accounts", f"- {shown(event.content, 25)}{said(event)}", budgets["accounts"], (event.id,))


def with_oldest(w: _Writer, budgets, buffer: int, ordered: list[LedgerEvent], loops: list[LedgerEvent],
                today: date, note) -> list[LedgerEvent]:
    """`ordered` with the newest commitments it takes to fit the OLDEST_COMMITMENTS oldest open ones
    moved to its end (counted on the "… more not shown" line): what waits longest is what gets
    forgotten, so they are always in the pack (the seed rule)."""
    oldest = {e.id for e in loops[:OLDEST_COMMITMENTS]}
    kept = list(ordered)
    while True:
        trial = copy.deepcopy(w)
        _spend(trial, "commitments", budgets, buffer, kept, today, note=note)
        if oldest <= trial.shown:
            return kept
        others = [e for e in kept if e.id not in oldest and e.id in trial.shown]
        if not others:
            return kept
        newest = max(others, key=lambda e: (e.ts, e.id))
        kept.remove(newest)
        kept.append(newest)


def ran(event: LedgerEvent) -> bool:
    """A record of a command that ran ("Ran `git add -A && git commit …`"), not a way of doing something."""
    return bool(RAN.match(plain_text(event.content)))


def _context(w: _Writer, budgets, live, today: date, warnings, conflicts) -> None:
    for warning in warnings:
        w.add("context", f"- ⚠️ integrity: {inline(_clip(warning, 30))}", budgets["context"] - RESERVE)
    by_id = {e.id: e for e in live}
    for a, b in conflicts:
        first, second = by_id[a], by_id[b]
        w.add("context", f"- ⚠️ CONFLICT: {a}{said(first)} says \"{shown(first.content, 25)}\", {b}{said(second)} "
              f"says \"{shown(second.content, 25)}\" — needs resolution", budgets["context"] - RESERVE, (a, b))
    rest = _by_relevance([e for e in live if e.type != "commitment" and e.id not in w.shown], today)
    _spend(w, "context", budgets, 0, rest, today)


def _by_relevance(events: list[LedgerEvent], today: date) -> list[LedgerEvent]:
    """Last 48 h before last week before last month before older; then durable value; then priority;
    newest first."""
    return sorted(events, key=lambda e: (_recency(e, today), durable_value(e), PRIORITY_RANK[e.priority],
                                         -e.ts.timestamp(), e.id))


# what a later session would most regret not knowing, best first
_VALUE_OF_TYPE = {"constraint": 0, "preference": 0, "decision": 1, "procedure": 1, "relationship": 2, "fact": 2}


def durable_value(event: LedgerEvent) -> int:
    """0 (best) to 5: the user's own rules and preferences, then their decisions and ways of doing
    things, then lessons (a root cause, what turned out), then other facts the user stated, then what
    only the agent said; a person's own entry (no transcript) counts as the user's."""
    typed = not event.said_by or user_typed(event.said_by)
    base = _VALUE_OF_TYPE.get(event.type, 2)
    if "insight" in event.tags:
        base = min(base, 1)
    return base + (0 if typed else 3)


def is_work(event: LedgerEvent) -> bool:
    """What may be the day's focus: what the user asked, decided or stated, or a person added; not
    the agent's own findings (a diagnosis, a symptom, a change it made), nor standing guidance (a
    rule, a preference, a way of doing something: their own sections and CONTEXT hold them)."""
    return (not event.said_by or "user" in event.said_by) and event.type not in ("procedure", "preference",
                                                                                 "constraint")


def _render(w: _Writer, day: str, project: str | None) -> str:
    """The sections in their fixed order; an empty one is named on the last line instead of standing as a
    heading over "_none_" (six empty parts were ~60 words of every session start)."""
    parts = [pack_header(day, project), ""]
    empty = []
    for section in SECTIONS:
        if w.lines[section.key]:
            parts += [section.heading, *w.lines[section.key], ""]
        else:
            empty.append(section.empty_name)
    if empty:
        parts.append(f"_Nothing recorded yet: {', '.join(empty)}._")
    return "\n".join(parts).rstrip() + "\n"
