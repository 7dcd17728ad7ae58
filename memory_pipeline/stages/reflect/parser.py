"""Parse the Reflector's answer into proposal drafts and a summary. Never raises.

Accepts the tagged format (`<proposals>` with `## Proposed for: Section` headings, `<summary>`),
unclosed tags, headings without the `Proposed for:` words, `*`/`-`/numbered bullets, checkboxes,
a `(YYYY-MM-DD)` prefix, refs as `[F1, O2]` or `{F1}`, and a `[quoted]` marker.
"""

from __future__ import annotations

import re

from memory_pipeline.models import ProposalDraft, ReflectorOutput
from memory_pipeline.stages.reflect.input import Source

_HEADING = re.compile(r"^#{2,4}\s*(?:proposed\s+for\s*:?\s*)?(?P<name>.+?)\s*#*\s*$", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(?P<body>.+)$")
_DATE_PREFIX = re.compile(r"^\(?\d{4}-\d{2}-\d{2}\)?\s*[:—-]?\s*")
_QUOTED = re.compile(r"^\[quoted\]\s*", re.IGNORECASE)
_TRAILING_REFS = re.compile(r"\s*(?:\[(?P<square>[^\[\]]*)\]|\{(?P<curly>[^{}]*)\})\s*[.;]?\s*$")
_REF = re.compile(r"\b([FO]\d+)\b")
_QUOTE_SPAN = re.compile(r"[\"“]([^\"”]{12,})[\"”]")

SECTION_ALIASES = {
    "user": "User", "the user": "User", "joel": "User", "developer": "User", "the developer": "User",
    "preferences": "User", "hard rules": "Hard Rules", "rules": "Hard Rules", "hard rule": "Hard Rules",
    "system architecture": "System Architecture", "architecture": "System Architecture",
    "system": "System Architecture", "patterns": "Patterns", "pattern": "Patterns", "lessons": "Patterns",
}
DEFAULT_SECTION = "Patterns"


def section_name(heading: str) -> str | None:
    """The MEMORY.md section a heading names, or None when it names none we know."""
    key = " ".join(re.sub(r"[*_`:]", " ", heading).split()).lower()
    return SECTION_ALIASES.get(key)


def _block(raw: str, tag: str, stop_tags: tuple[str, ...]) -> str | None:
    """The text inside <tag>…</tag>; an unclosed tag runs to the next known tag or the end."""
    start = re.search(rf"<{tag}\s*>", raw, re.IGNORECASE)
    if start is None:
        return None
    rest = raw[start.end():]
    end = re.search(rf"</{tag}\s*>", rest, re.IGNORECASE)
    if end is None:
        stops = [m.start() for t in stop_tags if (m := re.search(rf"</?{t}\s*>", rest, re.IGNORECASE))]
        return rest[: min(stops)] if stops else rest
    return rest[: end.start()]


def _strip_refs(body: str) -> tuple[str, list[str]]:
    refs: list[str] = []
    while (match := _TRAILING_REFS.search(body)) is not None:
        inside = match.group("square") if match.group("square") is not None else match.group("curly")
        found = _REF.findall(inside or "")
        if not found:
            break
        refs = found + refs
        body = body[: match.start()]
    return body.strip(), list(dict.fromkeys(refs))


def _draft(section: str, body: str, refs_map: dict[str, Source]) -> ProposalDraft | None:
    quoted = bool(_QUOTED.match(body))
    body = _QUOTED.sub("", body)
    body = _DATE_PREFIX.sub("", body.strip())
    quoted = bool(_QUOTED.match(body)) or quoted
    body = _QUOTED.sub("", body)
    text, refs = _strip_refs(body)
    text = " ".join(text.split())
    if len(text) < 3:
        return None
    known = [r for r in refs if r in refs_map]
    sources = [refs_map[r] for r in known]
    return ProposalDraft(
        section=section,
        text=text,
        refs=known,
        source_fact_ids=list(dict.fromkeys(s.fact_id for s in sources if s.fact_id)),
        source_observation_ids=list(dict.fromkeys(s.observation_id for s in sources)),
        sessions=list(dict.fromkeys(s.session_id for s in sources)),
        quotes_transcript=quoted or bool(_QUOTE_SPAN.search(text)),
    )


def _drafts(text: str, refs_map: dict[str, Source]) -> list[ProposalDraft]:
    drafts: list[ProposalDraft] = []
    section = DEFAULT_SECTION
    for line in text.splitlines():
        heading = _HEADING.match(line.strip())
        if heading:
            section = section_name(heading.group("name")) or DEFAULT_SECTION
            continue
        bullet = _BULLET.match(line)
        if bullet and (draft := _draft(section, bullet.group("body"), refs_map)) is not None:
            drafts.append(draft)
    seen: set[str] = set()
    unique = []
    for draft in drafts:
        if draft.text.lower() not in seen:
            seen.add(draft.text.lower())
            unique.append(draft)
    return unique


def parse_reflector_output(raw: str | None, refs: dict[str, Source] | None = None) -> ReflectorOutput:
    """ReflectorOutput from any answer; format says how much structure was found."""
    raw = raw or ""
    refs = refs or {}
    summary_text = _block(raw, "summary", ("proposals",))
    summary = " ".join((summary_text or "").split())
    proposals_text = _block(raw, "proposals", ("summary",))
    if proposals_text is not None:
        return ReflectorOutput(proposals=_drafts(proposals_text, refs), summary=summary, format="tagged")
    if summary_text is not None:
        body = re.sub(r"<summary\s*>.*?(</summary\s*>|$)", "", raw, flags=re.IGNORECASE | re.DOTALL)
        return ReflectorOutput(proposals=_drafts(body, refs), summary=summary, format="tagged")
    drafts = _drafts(raw, refs)
    return ReflectorOutput(proposals=drafts, format="untagged" if drafts else "empty")


def looks_like_reflection(raw: str) -> bool:
    """False for an answer with neither tags nor bullets (worth one re-ask)."""
    return bool(re.search(r"<(proposals|summary)\s*>", raw, re.IGNORECASE)) or bool(
        parse_reflector_output(raw).proposals
    )
