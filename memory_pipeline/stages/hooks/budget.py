"""A context built to a character budget (pure): what a client is handed at session start or after
a compaction, when it keeps only so many characters (Claude Code: 10,000 of a hook's
additionalContext, cut from the end).

The sections come in priority order, which is also the order they are shown in; a section may
take only a share of the room left when it starts, so the ones after it get some too. Each is a few
lines shown with it (a heading, a label) and its body; a fenced section's body sits inside a code
fence longer than any backtick run in it. Body lines are kept whole, in order, as many as fit (a
balanced section, the recall pack: the first lines of each of its parts first); a heading is kept
only with the line after it; a fence is always closed. When something is left
out, the last line says what and how to get it. Everything fits `budget` by construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memory_pipeline.stages.untrusted import fenced

ELLIPSIS = "…"


@dataclass
class Section:
    name: str  # what its lines are, for the left-out line: "MEMORY.md", "recall pack", …
    body: list[str]
    head: list[str] = field(default_factory=list)  # shown before the body, only when some of it is
    fenced: bool = False
    share: float = 1.0  # the most of the room left when it starts that it may take (the rest: the sections after)
    balanced: bool = False  # its parts (under its headings) each keep their first lines (taking_order)


@dataclass
class Fitted:
    text: str
    left_out: dict[str, int]  # section name → content lines left out

    @property
    def complete(self) -> bool:
        return not self.left_out


def units(lines: list[str]) -> list[list[str]]:
    """The body in the pieces it is kept or left out by: a line, or a heading (a `#` line, with the
    blank lines after it) together with the line it heads."""
    pieces: list[list[str]] = []
    pending: list[str] = []
    for line in lines:
        if pending and (not line.strip() or line.lstrip().startswith("#")):
            pending.append(line)
            continue
        if pending:
            pieces.append(pending + [line])
            pending = []
        elif line.lstrip().startswith("#"):
            pending = [line]
        else:
            pieces.append([line])
    if pending:
        pieces.append(pending)  # a heading with nothing under it: kept only if it fits alone
    return pieces


def content_lines(piece: list[str]) -> int:
    return sum(1 for line in piece if line.strip() and not line.lstrip().startswith("#"))


def render(section: Section, body: list[str]) -> list[str]:
    if not body:
        return []
    shown = fenced("\n".join(body)) if section.fenced else list(body)
    return [*section.head, *shown, ""]


def size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def taking_order(pieces: list[list[str]], balanced: bool) -> list[int]:
    """The order pieces are taken in: as written; or, balanced, the first piece under each heading,
    then the second under each, and so on (each part keeps its first lines, none is dropped whole)."""
    if not balanced:
        return list(range(len(pieces)))
    groups: list[list[int]] = []
    for number, piece in enumerate(pieces):
        if not groups or piece[0].lstrip().startswith("#"):
            groups.append([])
        groups[-1].append(number)
    return [group[i] for i in range(max(map(len, groups), default=0)) for group in groups if i < len(group)]


def joined(pieces: list[list[str]], chosen: set[int]) -> list[str]:
    return [line for number in sorted(chosen) for line in pieces[number]]


def fit(sections: list[Section], budget: int, left_out_line) -> Fitted:
    """The sections within `budget` characters; `left_out_line(left_out)` is the last line when
    something is left out (its length is reserved for it)."""
    whole = [line for s in sections for line in render(s, s.body)]
    if size(whole) <= budget:
        return Fitted("\n".join(whole).rstrip() + "\n", {})
    room = budget - len(left_out_line({s.name: 99_999 for s in sections})) - 2
    shown: list[str] = []
    left_out: dict[str, int] = {}
    for section in sections:
        pieces = units(section.body)
        limit = size(shown) + int((room - size(shown)) * section.share)
        chosen: set[int] = set()
        for number in taking_order(pieces, section.balanced):
            if size(shown) + size(render(section, joined(pieces, chosen | {number}))) > limit:
                break
            chosen.add(number)
        left = sum(content_lines(p) for n, p in enumerate(pieces) if n not in chosen)
        if left:
            left_out[section.name] = left_out.get(section.name, 0) + left
        shown += render(section, joined(pieces, chosen))
    shown.append(left_out_line(left_out))
    text = "\n".join(shown).rstrip() + "\n"
    if len(text) > budget:  # only a title longer than the budget: a cut line, never a cut fence
        text = text[: budget - 2] + ELLIPSIS + "\n"
    return Fitted(text, left_out)


def left_out_words(left_out: dict[str, int]) -> str:
    """"12 lines of the recall pack and 3 of the notes"."""
    parts = [f"{n} line{'s' if n != 1 else ''} of {name}" for name, n in left_out.items()]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
