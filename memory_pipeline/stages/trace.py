"""Record-level lineage, pure: what a `trace` target names, matching a promoted line to the draft
it came from, quoting a cited message, and the chain as readable lines.

A chain reads MEMORY.md line → proposal → reflection → observation facts → session/event →
transcript and its cited messages. Every link a trace cannot find is named in `missing`.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from memory_pipeline.models import ProposalDraft
from memory_pipeline.stages.proposal_ids import is_id
from memory_pipeline.stages.provenance import UNKNOWN, said_by
from memory_pipeline.stages.review.memory_md import line_id, without_marker
from memory_pipeline.stages.review.review_md import normalize_text

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
QUOTE_CHARS = 300
SIMILAR_ENOUGH = 0.5


def target_kind(target: str) -> str:
    """`proposal`, `line_number`, `record_id` (an observation, fact or recall hit id) or `line_text`."""
    target = target.strip()
    if is_id(target, "p"):
        return "proposal"
    if target.isdigit():
        return "line_number"
    if UUID.match(target.lower()):
        return "record_id"
    return "line_text"


def proposal_day(pid: str) -> str:
    stamp = pid.split("-")[1]
    return f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:]}"


@dataclass
class MemoryLine:
    number: int
    text: str
    proposal_id: str | None


def memory_lines(text: str) -> list[MemoryLine]:
    """Each line with the proposal id it ends with (a marker quoted inside the text is not one)."""
    return [MemoryLine(n, line, pid if (pid := line_id(line)) and pid.startswith("p-") else None)
            for n, line in enumerate(text.splitlines(), start=1)]


def find_lines(text: str, wanted: str) -> list[MemoryLine]:
    """The MEMORY.md bullet lines containing `wanted` (case, punctuation and spacing aside)."""
    key = normalize_text(wanted)
    return [line for line in memory_lines(text) if key and key in normalize_text(without_marker(line.text))
            and line.text.lstrip().startswith(("-", "*"))]


def _words(text: str) -> set[str]:
    return set(normalize_text(text).split())


def match_draft(drafts: list[ProposalDraft], texts: list[str]) -> tuple[ProposalDraft | None, str]:
    """The draft saying one of `texts` (the approved text, its original): exactly, else the most
    similar by shared words (Jaccard ≥ 0.5); returns (draft, how it was matched)."""
    keys = {normalize_text(t) for t in texts if t}
    for draft in drafts:
        if normalize_text(draft.text) in keys:
            return draft, "same text"
    best, score = None, 0.0
    for draft in drafts:
        for text in texts:
            a, b = _words(draft.text), _words(text)
            overlap = len(a & b) / len(a | b) if a | b else 0.0
            if overlap > score:
                best, score = draft, overlap
    if best is not None and score >= SIMILAR_ENOUGH:
        return best, f"similar text ({score:.0%} shared words)"
    return None, ""


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass
class Trace:
    target: str
    line: dict | None = None
    proposal: dict | None = None
    reflection: dict | None = None
    observations: list[dict] = field(default_factory=list)
    cited_by: list[dict] = field(default_factory=list)  # proposals that cite a traced observation or fact
    notes: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def _proposal_lines(p: dict) -> list[str]:
    lines = [f"└─ proposal {p['id']} [{p.get('section') or '?'}] {p.get('status') or '?'}"
             + (f" on {p['decided']}" if p.get("decided") else "")
             + (f" by {p['decided_by']}" if p.get("decided_by") else "") + f"  (from {p['found_in']})"]
    if p.get("created"):
        lines.append(f"   about {p['created']}" + (f", staged {p['staged']}" if p.get("staged") else ""))
    for entry in p.get("history", []):
        lines.append(f"   log {entry}")
    if p.get("original_text") and normalize_text(p["original_text"]) != normalize_text(p.get("text", "")):
        lines.append(f"   edited; proposed as: {p['original_text']}")
    return lines


def _observation_lines(o: dict) -> list[str]:
    project = f", project {o['project']}" if o.get("project") else ""
    lines = [f"      └─ observation {o['id']} ({o['date']}, session {o['session_id']}{project}, {o['trigger']}) "
             f"Observer prompt sha {o['prompt_sha'] or '?'}, model {o['model'] or '?'}, code version {o['code_version']}"]
    for fact in o["facts"]:
        lines.append(f"         fact {fact['id']} [{fact['priority']}] ({fact.get('time') or '--:--'}) said by "
                     f"{said_by(fact.get('source_roles') or [UNKNOWN])}: {fact['text']}")
    event = o.get("event")
    if event:
        lines.append(f"         └─ event {event['dedupe_key'][:16]}… captured {event['captured_at']}, "
                     f"{event['message_count']} messages, transcript {event['transcript']}")
    for message in o.get("messages", []):
        lines.append(f"            > [{message['timestamp'] or '?'}] {message['role']} ({message['id']}), said by "
                     f"{message.get('said_by') or UNKNOWN}: \"{message['quote']}\"")
    return lines


def render_trace(trace: Trace) -> list[str]:
    """The chain as indented lines, what could not be found last."""
    lines = []
    if trace.line:
        lines.append(f"MEMORY.md line {trace.line['number']}: {trace.line['text'].strip()}")
    if trace.proposal:
        lines += _proposal_lines(trace.proposal)
    if trace.reflection:
        r = trace.reflection
        lines.append(f"   └─ reflection {r['day']} ({r['path']}; matched by {r['matched']}; "
                     f"code version {r['code_version']}, {r['observations']} observations in its window)")
    for observation in trace.observations:
        lines += _observation_lines(observation)
    for cited in trace.cited_by:
        lines.append(f"cited by proposal {cited['id']} ({cited['status']}): {cited['text']}")
    lines += [f"note: {item}" for item in trace.notes]
    lines += [f"not found: {item}" for item in trace.missing]
    return lines
