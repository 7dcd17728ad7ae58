"""Read the Observer's answer into an ObserverOutput, whatever shape the model chose.

Order: segment format (<segment> blocks), flat XML (<observations> with bullets), a list-item
fallback (prioritized bullets anywhere), else an empty output. Malformed input never raises:
tags are located with one linear scan, bullets line by line, refs without backtracking regexes.
"""

from __future__ import annotations

import bisect
import re
from datetime import date as _date

from memory_pipeline.models import EMOJI_PRIORITY, Fact, ObserverOutput, Segment

MAX_FACT_CHARS = 1000
MAX_TITLE_CHARS = 120
MAX_RANGE = 100

_TAG = re.compile(
    r"<[ \t]*+(/?)[ \t]*+(observations|segment|title|narrative|facts|current-task|suggested-response)"
    r"(?:\s[^<>]{0,200})?>",
    re.IGNORECASE,
)
_EMOJI_BULLET = re.compile(
    r"(?:[*\-•+]|\d{1,3}[.)])?[ \t]*+(?:\((?P<time>[^()\n]{1,16})\)[ \t]*+)?(?P<emoji>🔴|🟡|🟢)\ufe0f?[ \t]*+(?P<rest>.*)",
    re.DOTALL,
)
_FALLBACK_BULLET = re.compile(r"(?:[*\-•][ \t]*+)?(?P<emoji>🔴|🟡|🟢)\ufe0f?[ \t]*+(?P<rest>.*)", re.DOTALL)
_WORD_BULLET = re.compile(r"[*\-•][ \t]*+\[(?P<word>high|medium|low)\][ \t]*+(?P<rest>.*)", re.IGNORECASE | re.DOTALL)
_PLAIN_BULLET = re.compile(r"(?:[*\-•+]|\d{1,3}[.)])[ \t]++(?P<rest>.+)", re.DOTALL)
_TIME = re.compile(r"\((\d{1,2}):(\d{2})\)[ \t]*+")
_REF_LIST = re.compile(r"(?:refs?:?[ \t]*+)?m\d{1,7}(?:[ \t]*+(?:[,;]|\.\.|-|–|and)?[ \t]*+m\d{1,7})*", re.IGNORECASE)
_REF = re.compile(r"m(\d{1,7})(?:[ \t]*+(?:-|–|\.\.)[ \t]*+m(\d{1,7}))?", re.IGNORECASE)
_DATE = re.compile(r"Date:[ \t]*+(\d{4}-\d{2}-\d{2})")

_OBSERVATIONS_END = {("/", "observations"), ("", "current-task"), ("", "suggested-response")}
_SEGMENT_END = _OBSERVATIONS_END | {("", "segment"), ("/", "segment")}


class _Tags:
    """Positions of the known tags in one text, in order: (start, end, closing, name)."""

    def __init__(self, text: str) -> None:
        self.items = [(m.start(), m.end(), m.group(1), m.group(2).lower()) for m in _TAG.finditer(text)]
        self.starts = [item[0] for item in self.items]

    def element(self, name: str, lo: int, hi: int, ends: set[tuple[str, str]] | None = None) -> tuple[int, int] | None:
        """The content span of the first <name> in [lo, hi): up to its close tag, a boundary tag, or hi."""
        i = bisect.bisect_left(self.starts, lo)
        while i < len(self.items) and self.items[i][0] < hi:
            start, end, closing, tag = self.items[i]
            if tag == name and not closing:
                for j in range(i + 1, len(self.items)):
                    s, _, c, t = self.items[j]
                    if s >= hi:
                        break
                    if (t == name and c) or (ends is None and t != name) or (ends and (c, t) in ends):
                        return end, s
                return end, hi
            i += 1
        return None

    def elements(self, name: str, lo: int, hi: int, ends: set[tuple[str, str]]) -> list[tuple[int, int]]:
        spans, cursor = [], lo
        while (span := self.element(name, cursor, hi, ends)) is not None:
            spans.append(span)
            cursor = span[1]
        return spans


def _clean_text(text: str) -> str:
    return " ".join(_TAG.sub(" ", text).split())


def strip_refs(text: str) -> tuple[str, list[str]]:
    """Remove trailing `[m3, m7]`, `[m3][m7]` or `(m3)` groups; return the text and the refs in order."""
    groups: list[list[str]] = []
    end = len(text)
    while True:
        stop = end
        while stop > 0 and text[stop - 1] in " \t\n.":
            stop -= 1
        if stop == 0 or text[stop - 1] not in "])":
            break
        start = text.rfind("[" if text[stop - 1] == "]" else "(", max(0, stop - 400), stop - 1)
        if start < 0 or not _REF_LIST.fullmatch(text[start + 1 : stop - 1].strip()):
            break
        found: list[str] = []
        for m in _REF.finditer(text, start + 1, stop - 1):
            first, last = int(m.group(1)), int(m.group(2) or m.group(1))
            span = range(first, last + 1) if 0 <= last - first <= MAX_RANGE else (first, last)
            found.extend(f"m{n}" for n in span)
        groups.append(found)
        end = start
    refs = list(dict.fromkeys(r for group in reversed(groups) for r in group))
    return (text[:end].rstrip() if refs else text), refs


def _fact(priority: str, body: str, refs_map: dict[str, str] | None) -> Fact | None:
    body = " ".join(body.split())
    time = None
    m = _TIME.match(body)
    if m and int(m.group(1)) < 24 and int(m.group(2)) < 60:
        time = f"{int(m.group(1)):02d}:{m.group(2)}"
        body = body[m.end() :]
    body, refs = strip_refs(body)
    body = body.strip().rstrip("—–-:").strip()
    if not body:
        return None
    if len(body) > MAX_FACT_CHARS:
        body = body[: MAX_FACT_CHARS - 1].rstrip() + "…"
    ids = refs if refs_map is None else [refs_map[r] for r in refs if r in refs_map]
    return Fact(priority=priority, time=time, text=body, source_message_ids=list(dict.fromkeys(ids)))


def _bullet(line: str, *, plain: str | None) -> tuple[str, str] | None:
    """(priority, body) when the line starts a bullet; `plain` is the priority for unmarked bullets."""
    if m := _EMOJI_BULLET.match(line):
        time = m.group("time")
        return EMOJI_PRIORITY[m.group("emoji")], (f"({time}) " if time else "") + m.group("rest")
    if m := _WORD_BULLET.match(line):
        return m.group("word").lower(), m.group("rest")
    if plain and (m := _PLAIN_BULLET.match(line)):
        return plain, m.group("rest")
    return None


def _facts(text: str, refs_map: dict[str, str] | None, *, plain: str | None = None) -> list[Fact]:
    """Bullets in a block of text; a non-bullet line right after a bullet continues it."""
    pending: list[tuple[str, list[str]]] = []
    open_bullet = False
    for raw_line in text.splitlines():
        line = raw_line.strip()
        if not line:
            open_bullet = False
            continue
        found = _bullet(line, plain=plain)
        if found:
            pending.append((found[0], [found[1]]))
            open_bullet = True
        elif open_bullet and not line.startswith("Date:"):
            pending[-1][1].append(line)
    facts = (_fact(priority, " ".join(parts), refs_map) for priority, parts in pending)
    return [f for f in facts if f is not None]


def _fallback_facts(raw: str, refs_map: dict[str, str] | None) -> list[Fact]:
    facts = []
    for line in raw.splitlines():
        m = _FALLBACK_BULLET.match(line.strip())
        if m and (fact := _fact(EMOJI_PRIORITY[m.group("emoji")], m.group("rest"), refs_map)):
            facts.append(fact)
    return facts


def _before_bullets(raw: str, span: tuple[int, int] | None) -> tuple[int, int] | None:
    """Cut an unclosed <title>/<narrative> at its first bullet line: the bullets are facts."""
    if span is None:
        return None
    offset = span[0]
    for line in raw[span[0] : span[1]].splitlines(keepends=True):
        if _bullet(line.strip(), plain=None):
            return span[0], offset
        offset += len(line)
    return span


def _segment(raw: str, tags: _Tags, lo: int, hi: int, refs_map: dict[str, str] | None) -> Segment | None:
    title_span = _before_bullets(raw, tags.element("title", lo, hi))
    narrative_span = _before_bullets(raw, tags.element("narrative", lo, hi))
    facts_span = tags.element("facts", lo, hi)
    title = _clean_text(raw[slice(*title_span)]) if title_span else ""
    narrative = _clean_text(raw[slice(*narrative_span)]) if narrative_span else ""
    if facts_span:
        facts = _facts(raw[slice(*facts_span)], refs_map, plain="medium")
    else:  # bullets written straight into the segment
        rest = raw[lo:hi]
        for span in sorted((s for s in (title_span, narrative_span) if s), reverse=True):
            rest = rest[: span[0] - lo] + "\n" + rest[span[1] - lo :]
        rest = _TAG.sub("\n", rest)
        facts = _facts(rest, refs_map)
        if not narrative:
            loose = [ln for ln in rest.splitlines() if ln.strip() and not _bullet(ln.strip(), plain=None)]
            narrative = _clean_text(" ".join(loose)) if len(loose) <= 5 else ""
    if len(title) > MAX_TITLE_CHARS:
        title = title[: MAX_TITLE_CHARS - 1].rstrip() + "…"
    if not (title or narrative or facts):
        return None
    return Segment(title=title, narrative=narrative, facts=facts)


def _valid_date(text: str) -> str | None:
    m = _DATE.search(text)
    if not m:
        return None
    try:
        return _date.fromisoformat(m.group(1)).isoformat()
    except ValueError:
        return None


def parse_observer_output(raw: str | None, refs: dict[str, str] | None = None) -> ObserverOutput:
    """Parse a model's Observer answer. Never raises; unusable input gives format "empty"."""
    raw = (raw or "").replace("\r\n", "\n")
    tags = _Tags(raw)
    end = len(raw)
    current_task = tags.element("current-task", 0, end)
    suggested = tags.element("suggested-response", 0, end)
    observations = tags.element("observations", 0, end, _OBSERVATIONS_END)
    base = ObserverOutput(
        date=_valid_date(raw[slice(*observations)] if observations else raw),
        current_task=(_clean_block(raw[slice(*current_task)]) if current_task else None),
        suggested_response=(_clean_block(raw[slice(*suggested)]) if suggested else None),
    )
    lo, hi = observations if observations else (0, end)
    spans = tags.elements("segment", lo, hi, _SEGMENT_END)
    segments = [s for span in spans if (s := _segment(raw, tags, span[0], span[1], refs)) is not None]
    if segments:
        return base.model_copy(update={"segments": segments, "format": "segments"})
    if observations and (facts := _facts(raw[lo:hi], refs)):
        return base.model_copy(update={"segments": [Segment(facts=facts)], "format": "flat"})
    if facts := _fallback_facts(raw, refs):
        return base.model_copy(update={"segments": [Segment(facts=facts)], "format": "fallback"})
    return base


def _clean_block(text: str) -> str | None:
    """Keep line structure (Primary:/Secondary:) but drop stray tags and blank lines."""
    lines = [" ".join(_TAG.sub(" ", line).split()) for line in text.splitlines()]
    cleaned = "\n".join(line for line in lines if line)
    return cleaned or None
