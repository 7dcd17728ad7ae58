"""Review, pure: proposal ids, REVIEW.md rendering and parsing, decisions from a user's edits, expiry.

REVIEW.md (seed format): a heading, two instruction lines, `## Proposed for: Section` groups of
`- [ ] \`p-YYYYMMDD-NNN\` text` lines, and a last-updated line with the pending count.
`[x]` approves, `[-]` or a deleted line rejects, edited text is what gets approved.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from memory_pipeline.models import MEMORY_SECTIONS, Proposal

REVIEW_HEADING = "# Pending Memory Proposals"
QUOTE_NOTE = "_(quotes transcript)_"
EXPIRE_AFTER_DAYS = 7
_ID = re.compile(r"^p-(\d{8})-(\d{3})$")
_LINE = re.compile(r"^\s*[-*]\s*\[(?P<mark>[ xX\-~]?)\]\s*(?P<rest>.*)$")
_LINE_ID = re.compile(r"^`?(?P<id>p-\d{8}-\d{3})`?\s*(?P<text>.*)$")
_ANY_ID = re.compile(r"p-\d{8}-\d{3}")


def proposal_id(day: str, number: int) -> str:
    return f"p-{day.replace('-', '')}-{number:03d}"


def next_numbers(day: str, existing_ids: list[str], count: int) -> list[str]:
    """`count` fresh ids for `day`, after the highest number already used that day."""
    stamp = day.replace("-", "")
    used = [int(m.group(2)) for pid in existing_ids if (m := _ID.match(pid)) and m.group(1) == stamp]
    start = max(used, default=0) + 1
    if start + count - 1 > 999:
        raise ValueError(f"more than 999 proposals on {day}")
    return [proposal_id(day, n) for n in range(start, start + count)]


def normalize_text(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def text_key(text: str) -> str:
    """What two proposals share when they say the same thing (case, punctuation, spacing aside)."""
    return hashlib.sha256(normalize_text(text).encode()).hexdigest()[:24]


def review_start(proposal: Proposal) -> str:
    """The day a proposal's review clock started: when it was staged (proposals staged before
    `staged` existed were staged on the day they are about)."""
    return proposal.staged or proposal.created


def is_expired(proposal: Proposal, today: str, days: int = EXPIRE_AFTER_DAYS) -> bool:
    """Pending for `days` days since it was staged (not since the day it is about: a backfill of
    old days must leave its proposals reviewable)."""
    start = date.fromisoformat(review_start(proposal))
    return proposal.status == "pending" and start + timedelta(days=days) <= date.fromisoformat(today)


def render_review_md(pending: list[Proposal], now: datetime) -> str:
    """REVIEW.md for the pending proposals, grouped by section in MEMORY.md order."""
    reviewed = max((p.created for p in pending), default=now.date().isoformat())
    lines = [REVIEW_HEADING, "", f"_Reviewed by Reflector on {reviewed}. Approve, edit, or reject each item._",
             "_Mark [x] to approve, delete the line to reject, or edit the text before approving._", ""]
    for section in MEMORY_SECTIONS:
        group = sorted((p for p in pending if p.section == section), key=lambda p: p.id)
        if not group:
            continue
        lines.append(f"## Proposed for: {section}")
        for p in group:
            note = f" {QUOTE_NOTE}" if p.quotes_transcript else ""
            lines.append(f"- [ ] `{p.id}` {p.text}{note}")
        lines.append("")
    if not pending:
        lines += ["_No proposals pending._", ""]
    stamp = now.astimezone().strftime("%Y-%m-%dT%H:%M:%S%z")
    count = len(pending)
    lines.append(f"_Last updated: {stamp} | {count} proposal{'s' if count != 1 else ''} pending_")
    return "\n".join(lines) + "\n"


@dataclass
class ReviewLine:
    number: int
    pid: str | None
    mark: str  # "approve", "reject" or "open"
    text: str


@dataclass
class ParsedReview:
    has_heading: bool = False
    lines: list[ReviewLine] = field(default_factory=list)
    stray: list[int] = field(default_factory=list)  # checkbox lines without an id


def parse_review_md(text: str) -> ParsedReview:
    """Every checkbox line with its id, mark and text; tolerant of any surrounding damage."""
    parsed = ParsedReview(has_heading=any(line.strip() == REVIEW_HEADING for line in text.splitlines()))
    for number, line in enumerate(text.splitlines(), start=1):
        match = _LINE.match(line)
        if not match:
            if _ANY_ID.search(line):  # an id on a line whose checkbox the user broke
                pid = _ANY_ID.search(line).group(0)
                parsed.lines.append(ReviewLine(number, pid, "open", _clean(line.split(pid, 1)[1])))
            continue
        mark = {"x": "approve", "X": "approve", "-": "reject", "~": "reject"}.get(match.group("mark"), "open")
        found = _LINE_ID.match(match.group("rest").strip())
        if found is None:
            parsed.stray.append(number)
            continue
        parsed.lines.append(ReviewLine(number, found.group("id"), mark, _clean(found.group("text"))))
    return parsed


def _clean(text: str) -> str:
    text = text.strip().strip("`").strip()
    if text.endswith(QUOTE_NOTE):
        text = text[: -len(QUOTE_NOTE)]
    return " ".join(text.split())


@dataclass
class Decisions:
    approve: dict[str, str] = field(default_factory=dict)  # id -> text to promote
    reject: list[str] = field(default_factory=list)
    edit: dict[str, str] = field(default_factory=dict)  # id -> new text (still pending)
    messages: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)

    def damaged(self, parsed: "ParsedReview") -> bool:
        """True when the file had lines this pipeline could not use (worth a backup)."""
        return not parsed.has_heading or bool(parsed.stray or self.unknown or self.duplicates)


def decide(parsed: ParsedReview, rendered: dict[str, str], proposals: dict[str, Proposal]) -> Decisions:
    """What the user's REVIEW.md says, against what was last rendered and what is stored.

    `rendered` maps the ids of the last rendered REVIEW.md to their texts; only those can be
    rejected by deleting their line, and only when the file still has its heading.
    """
    out = Decisions()
    by_id: dict[str, list[ReviewLine]] = {}
    for line in parsed.lines:
        by_id.setdefault(line.pid, []).append(line)
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
