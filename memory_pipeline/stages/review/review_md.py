r"""Review, pure: proposal ids, REVIEW.md rendering and parsing, decisions from a user's edits, expiry.

REVIEW.md (seed format): a heading, two instruction lines, `## Proposed for: Section` groups of
`- [ ] \`p-YYYYMMDD-NNN-xxxx\` text` lines, and a last-updated line with the pending count.
`[x]` approves, `[-]` or a deleted line rejects, edited text is what gets approved.
Friction fixes (`f-YYYYMMDD-NNN-xxxx`) follow under `## Friction Fixes`, reviewed the same way; their
`↳` detail lines (target, severity, evidence) are for reading and never parsed.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from memory_pipeline.models import MEMORY_SECTIONS, Proposal
from memory_pipeline.stages.friction.review_section import DETAIL_MARK, render_fix_section
from memory_pipeline.stages.guard import held_note
from memory_pipeline.stages.proposal_ids import ANY_ID, ID_TEXT
from memory_pipeline.stages.review.memory_md import (
    flag_changed,
    for_project,
    heading_project,
    section_heading,
    without_marker,
)
from memory_pipeline.stages.untrusted import inline

REVIEW_HEADING = "# Pending Memory Proposals"
QUOTE_NOTE = "_(quotes transcript)_"
_HELD = re.compile(r"\s*_\(⚠ held for review:[^)]*\)_\s*$")
_TRIAGE_NOTE = re.compile(r"\s*_\(triage: [^\n]*\)_$")
_EXPIRY_NOTE = re.compile(r"\s*_\(⏳ expires [^)\n]*\)_")
EXPIRE_AFTER_DAYS = 7
WARN_AFTER_DAYS = 5  # a proposal pending longer is flagged in REVIEW.md and by `review`: it expires soon
_LINE = re.compile(r"^\s*[-*+]\s*\[(?P<mark>[^\]\n]{0,4})\]\s*(?P<rest>.*)$")
APPROVE_MARKS = {"x", "✓", "✔", "☑", "✅", "y", "yes", "ok", "+", "*"}  # compared lower-case, spaces removed
REJECT_MARKS = {"-", "~", "✗", "✘", "❌", "n", "no", "–", "—"}
_LINE_ID = re.compile(rf"^`?(?P<id>{ID_TEXT})`?(?![\w\-])\s*(?P<text>.*)$")


def normalize_text(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def text_key(text: str, project: str = "") -> str:
    """What two proposals share when they say the same thing (case, punctuation, spacing aside) for
    the same project: one line may be proposed once per project."""
    scoped = normalize_text(text) + (f"\x1f{project}" if project else "")
    return hashlib.sha256(scoped.encode()).hexdigest()[:24]


def review_start(proposal: Proposal) -> str:
    """The day a proposal's review clock started: when it was staged (proposals staged before
    `staged` existed were staged on the day they are about)."""
    return proposal.staged or proposal.created


def is_expired(proposal: Proposal, today: str, days: int = EXPIRE_AFTER_DAYS) -> bool:
    """Pending for `days` days since it was staged (not since the day it is about: a backfill of
    old days must leave its proposals reviewable)."""
    start = date.fromisoformat(review_start(proposal))
    return proposal.status == "pending" and start + timedelta(days=days) <= date.fromisoformat(today)


def changes_note(pid: str, old_line: str) -> str:
    """The line under a proposal that contradicts a MEMORY.md line: both, and the choice."""
    old = inline(without_marker(old_line).strip().removeprefix("- ").removeprefix("* "))
    return (f"  {DETAIL_MARK} changes MEMORY.md's \"{old}\": `memory-pipeline review approve {pid} --replace` "
            "puts it in that line's place; [x] adds it beside the old line")


def days_left(proposal: Proposal, today: str, days: int = EXPIRE_AFTER_DAYS) -> int:
    """Days until a pending proposal expires (0: it expires today, at the next review run)."""
    start = date.fromisoformat(review_start(proposal))
    return (start + timedelta(days=days) - date.fromisoformat(today)).days


def expiry_note(proposal: Proposal, today: str) -> str:
    """" _(⏳ expires in 1 day: …)_" for a proposal pending more than WARN_AFTER_DAYS, else ""."""
    left = days_left(proposal, today)
    if proposal.status != "pending" or EXPIRE_AFTER_DAYS - left <= WARN_AFTER_DAYS:
        return ""
    when = "today" if left <= 0 else f"in {left} day{'s' if left != 1 else ''}"
    return f" _(⏳ expires {when}: approve, edit or reject it, or it is dropped)_"


def render_review_md(pending: list[Proposal], now: datetime, changes: dict[str, str] | None = None) -> str:
    """REVIEW.md for the pending proposals, grouped by section in MEMORY.md order, then the
    pending friction fixes under `## Friction Fixes`. `changes`: proposal id -> the MEMORY.md line
    it contradicts (memory_md.contradicted_line), shown under it with how to replace that line."""
    changes = changes or {}
    fixes = [p for p in pending if p.is_fix]
    pending = [p for p in pending if not p.is_fix]
    reviewed = max((p.created for p in pending), default=now.date().isoformat())
    lines = [REVIEW_HEADING, "", f"_Reviewed by Reflector on {reviewed}. Approve, edit, or reject each item._",
             "_Mark [x] to approve, delete the line to reject, or edit the text before approving._", ""]
    # grouped by where an approval lands: `## Proposed for: Hard Rules — shop` is MEMORY.md's
    # `## Hard Rules — shop` (project shop); a plain section applies in every project
    for project, section in sorted({(p.project, p.section) for p in pending},
                                   key=lambda key: (key[0], MEMORY_SECTIONS.index(key[1]))):
        # what triage could not settle first: a person's attention goes where it is needed
        group = sorted((p for p in pending if p.section == section and p.project == project),
                       key=lambda p: (p.triage != "needs-review", p.id))
        lines.append(f"## Proposed for: {section_heading(section, project)}")
        for p in group:
            note = (f" {QUOTE_NOTE}" if p.quotes_transcript else "") + held_note(p.text)
            verdict = f" _(triage: {p.triage} — {inline(p.triage_reason)})_" if p.triage else ""
            expiry = expiry_note(p, now.date().isoformat())
            lines.append(f"- [ ] `{p.id}` {inline(p.text)}{note}{expiry}{verdict}")
            if p.id in changes:
                lines.append(changes_note(p.id, changes[p.id]))
        lines.append("")
    if not pending:
        lines += ["_No proposals pending._", ""]
    lines += render_fix_section(fixes)
    stamp = now.astimezone().strftime("%Y-%m-%dT%H:%M:%S%z")
    count = len(pending)
    fix_note = f", {len(fixes)} friction fix{'es' if len(fixes) != 1 else ''}" if fixes else ""
    lines.append(f"_Last updated: {stamp} | {count} proposal{'s' if count != 1 else ''}{fix_note} pending_")
    return "\n".join(lines) + "\n"


@dataclass
class ReviewLine:
    number: int
    pid: str
    mark: str  # "approve", "reject" or "open"
    text: str


@dataclass
class ParsedReview:
    has_heading: bool = False
    lines: list[ReviewLine] = field(default_factory=list)
    stray: list[int] = field(default_factory=list)  # checkbox lines without an id
    not_understood: list[tuple[int, str]] = field(default_factory=list)  # (line, mark) left open


def read_mark(raw: str) -> str:
    """approve, reject or open for a checkbox's content; `[x ]`, `[ X]`, `[✓]` are approvals,
    `[ - ]`, `[✗]` rejections; anything else is "unknown" (reported, the line stays open)."""
    mark = "".join(raw.split()).lower()
    if not mark:
        return "open"
    return "approve" if mark in APPROVE_MARKS else "reject" if mark in REJECT_MARKS else "unknown"


def parse_review_md(text: str) -> ParsedReview:
    """Every checkbox line with its id, mark and text; tolerant of any surrounding damage."""
    parsed = ParsedReview(has_heading=any(line.strip() == REVIEW_HEADING for line in text.splitlines()))
    for number, line in enumerate(text.splitlines(), start=1):
        match = _LINE.match(line)
        if not match:
            if line.lstrip().startswith(DETAIL_MARK):  # a fix's detail line: for reading only
                continue
            if found := ANY_ID.search(line):  # an id on a line whose checkbox the user broke
                pid = found.group("id")
                parsed.lines.append(ReviewLine(number, pid, "open", _clean(line.split(pid, 1)[1])))
            continue
        mark = read_mark(match.group("mark"))
        found = _LINE_ID.match(match.group("rest").strip())
        if found is None:
            parsed.stray.append(number)
            continue
        if mark == "unknown":
            parsed.not_understood.append((number, match.group("mark")))
            mark = "open"
        parsed.lines.append(ReviewLine(number, found.group("id"), mark, _clean(found.group("text"))))
    return parsed


def _clean(text: str) -> str:
    text = _HELD.sub("", _EXPIRY_NOTE.sub("", _TRIAGE_NOTE.sub("", text.strip()))).strip().strip("`").strip()
    if text.endswith(QUOTE_NOTE):
        text = text[: -len(QUOTE_NOTE)]
    return " ".join(text.split())


def _unbound_approval(pid: str, lines: list[ReviewLine], rendered: dict[str, str]) -> str | None:
    """Why a tick on `pid` is not one the product can take, or None: the id was not in the REVIEW.md
    this pipeline wrote (when a render is on record), or it is on several lines that disagree (a
    forged ticked line beside the product's unticked one, or with other text)."""
    if rendered and pid not in rendered:
        return "is ticked but was not in the REVIEW.md this pipeline wrote"
    if len(lines) > 1 and ({line.mark for line in lines} != {"approve"}
                           or len({normalize_text(line.text) for line in lines}) > 1):
        return "is ticked on one line and not on another (or with other text)"
    return None


@dataclass
class Decisions:
    approve: dict[str, str] = field(default_factory=dict)  # id -> text to promote
    reject: list[str] = field(default_factory=list)
    edit: dict[str, str] = field(default_factory=dict)  # id -> new text (still pending)
    messages: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)

    def damaged(self, parsed: ParsedReview) -> bool:
        """True when the file had lines this pipeline could not use (worth a backup)."""
        return not parsed.has_heading or bool(parsed.stray or self.unknown or self.duplicates)


def decide(parsed: ParsedReview, rendered: dict[str, str], proposals: dict[str, Proposal]) -> Decisions:
    """What the user's REVIEW.md says, against what was last rendered and what is stored.

    `rendered` maps the ids of the last rendered REVIEW.md to their texts; only those can be
    rejected by deleting their line, and only when the file still has its heading. REVIEW.md is
    read only where the product wrote: an approval counts for an id it rendered (when a render is
    on record), and an id on several lines is approved only when every line is ticked with one
    text (a forged ticked line beside the product's line approves nothing).
    """
    out = Decisions()
    by_id: dict[str, list[ReviewLine]] = {}
    for line in parsed.lines:
        by_id.setdefault(line.pid, []).append(line)
    for number, mark in parsed.not_understood:
        out.messages.append(f"REVIEW.md line {number}: mark [{mark}] not understood; use [x] to approve or "
                            "[-] to reject (left pending)")
    for number in parsed.stray:
        out.messages.append(f"REVIEW.md line {number}: no proposal id; ignored (edit MEMORY.md directly for your own lines)")
    for pid, lines in by_id.items():
        proposal = proposals.get(pid)
        if proposal is None:
            out.messages.append(f"REVIEW.md line {lines[0].number}: unknown proposal id {pid}; ignored")
            out.unknown.append(pid)
            continue
        if proposal.status != "pending":
            if any(line.mark != "open" for line in lines):
                out.messages.append(f"{pid} was already {proposal.status}; its line was ignored")
            continue
        marks = {line.mark for line in lines}
        if len(lines) > 1:
            out.duplicates.append(pid)
            out.messages.append(f"{pid} appears {len(lines)} times in REVIEW.md (lines "
                                f"{', '.join(str(line.number) for line in lines)})")
        if {"approve", "reject"} <= marks:
            out.messages.append(f"{pid} is both approved and rejected in REVIEW.md; left pending")
            continue
        if "approve" in marks and (why := _unbound_approval(pid, lines, rendered)):
            out.messages.append(f"{pid} {why}; not approved (approve it with `memory-pipeline review approve {pid}` "
                                "after checking it)")
            continue
        chosen = next((line for line in lines if line.mark != "open"), lines[0])
        text = chosen.text if len(chosen.text) >= 3 else proposal.text
        if len(chosen.text) < 3:
            out.messages.append(f"{pid}: the edited text is empty; kept the proposed text")
        if chosen.mark == "approve":
            out.approve[pid] = text
        elif chosen.mark == "reject":
            out.reject.append(pid)
        elif normalize_text(text) != normalize_text(proposal.text):
            out.edit[pid] = text
    missing = [pid for pid in rendered if pid not in by_id and proposals.get(pid) and proposals[pid].status == "pending"]
    if missing and not parsed.has_heading:
        out.messages.append(f"REVIEW.md lost its '{REVIEW_HEADING}' heading; {len(missing)} missing lines "
                            "were not taken as rejections")
    elif missing:
        out.reject += missing
    return out


_PROPOSED_FOR = re.compile(r"^##\s+Proposed for:\s*(?P<heading>.+?)\s*$")


def pending_lines(text: str | None, project: str | None) -> list[ReviewLine]:
    """Open (unticked) lines of REVIEW.md a session in `project` is asked about: those under a plain
    `## Proposed for: Section` or one of `project` (None: every project). Another project's proposals are that
    project's to review."""
    if not text:
        return []
    owner_of: dict[int, str] = {}
    owner = ""
    for number, line in enumerate(text.splitlines(), start=1):
        if match := _PROPOSED_FOR.match(line):
            owner = heading_project(match.group("heading"))
        elif line.startswith("## "):
            owner = ""  # `## Friction Fixes` and any other section: not one project's
        owner_of[number] = owner
    return [line for line in parse_review_md(text).lines
            if line.mark == "open" and (project is None or owner_of.get(line.number, "") in ("", project))]


def pending_for(text: str | None, project: str | None) -> int:
    """How many proposals a session in `project` is asked about (`pending_lines`), each id once."""
    return len({line.pid for line in pending_lines(text, project)})


def memory_as_read(memory: str, review: str | None, project: str | None) -> str:
    """MEMORY.md as a session in `project` reads it (the briefing, and again after a compaction): its project's and
    the plain sections, id markers off, each line a pending proposal of REVIEW.md changes flagged
    (`memory_md.flag_changed`; not for None, every project's)."""
    memory = for_project(memory, project)
    if project is not None:
        memory = flag_changed(memory, [line.text for line in pending_lines(review, project)])
    return without_marker(memory)

