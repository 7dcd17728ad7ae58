"""What changed on a knowledge page (seed 001: "when updating, note what changed and why at the
bottom"), pure.

A page's generated block lists the ledger events it stands on by id. When a rebuild changes the
block, the ids that came in and the ids that went out are noted as one dated line under
`## What changed` at the bottom of the page, with why an event went out when the new block says
(its History line: superseded by EVT-…, closed), else "no longer active in the ledger". The notes
sit outside the generated block, so later rebuilds keep them like any hand-written text.
"""

from __future__ import annotations

import re

from memory_pipeline.stages.ledger.knowledge import END, START

CHANGES = "## What changed"
_ID = re.compile(r"\bEVT-\d{8}-\d{3,}\b")
_WHY = re.compile(r"^- \S+ (?P<id>EVT-\d{8}-\d{3,}) \([a-z]+\): .* — (?P<why>superseded by EVT-\d{8}-\d{3,}|closed)$",
                  re.MULTILINE)
SHOWN = 5


def generated_block(page: str) -> str:
    """The generated part of a page ("" when it has none)."""
    if START not in page or END not in page.split(START, 1)[1]:
        return ""
    return page.split(START, 1)[1].split(END, 1)[0]


def listed_ids(block: str) -> list[str]:
    """The ids a block stands on: every id outside its History (which also lists what went out)."""
    current = block.split("\n## History", 1)[0]
    return list(dict.fromkeys(_ID.findall(current)))


def _ids(ids: list[str]) -> str:
    more = f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else ""
    return ", ".join(ids[:SHOWN]) + more


def change_note(old_block: str, new_block: str, day: str) -> str | None:
    """The dated line saying what a rebuild changed, or None when no event came in or went out."""
    before, after = listed_ids(old_block), listed_ids(new_block)
    added = [i for i in after if i not in before]
    gone = [i for i in before if i not in after]
    if not added and not gone:
        return None
    why = {m.group("id"): m.group("why") for m in _WHY.finditer(new_block)}
    parts = [f"added {_ids(added)}"] if added else []
    reasons: dict[str, list[str]] = {}
    for event_id in gone:
        reasons.setdefault(why.get(event_id, "no longer active in the ledger"), []).append(event_id)
    parts += [f"removed {_ids(ids)} ({reason})" for reason, ids in reasons.items()]
    return f"- {day}: {'; '.join(parts)}"


def with_change_note(page: str, note: str | None) -> str:
    """The page with `note` added at the bottom under `## What changed` (the heading added once)."""
    if note is None:
        return page
    body = page.rstrip("\n")
    heading = "" if f"\n{CHANGES}\n" in f"\n{body.split(END, 1)[-1]}\n" else f"\n\n{CHANGES}\n"
    return f"{body}{heading}{note}\n" if heading else f"{body}\n{note}\n"
