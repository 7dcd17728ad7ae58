"""The agent's closing summary of finished work: what the code is like now.

A summary ("All done. Here's a summary of …") is mostly a change log, which the narrative keeps. One
kind of line in it outlasts the task: a present state of the code it names ("Both `SessionLive` and
`SubagentLive` now use the shared pipeline"). Its subject is often named only by the lines around it,
so the code names its group lists (the modules "the shared pipeline" is made of) come with it. A
list of modules with what each holds ("`cli/args.ts` - CLI argument parsing") is where code lives.
Test counts, statuses and change verbs stay out.
"""

from __future__ import annotations

import re

# the message reports finished work
_CLOSING = re.compile(r"^\W*(?:all (?:done|set|complete[d]?)|done|finished|summary|here'?s (?:a |the )?summary|"
                      r"(?:the )?(?:epic|task|work|feature|refactor)\b[^.]{0,40}\b(?:is )?(?:complete|done|finished))\b",
                      re.IGNORECASE)
# a present state after the change: "X now uses Y", "X now renders through Y"
_NOW_STATE = re.compile(r"^(?P<subject>.*`[^`]+`.*?)\bnow (?:uses?|runs?|reads?|renders?|goes|lives?|calls?|shares?|"
                        r"handles?|owns?|delegates?|depends on|comes? from|points? at)\b", re.IGNORECASE)
_STATUS = re.compile(r"\b(?:tests?|passing|pass(?:es)?|green|clean|pushed|committed|merged)\b", re.IGNORECASE)
_ITEM = re.compile(r"^(?P<indent>\s*)(?:[-*•+]|\d{1,3}[.)])\s+(?P<text>.+)$")
_MODULE = re.compile(r"`(?P<name>[A-Z][A-Za-z0-9]*(?:\.[A-Z][A-Za-z0-9]*)*)`")
_EMPHASIS = re.compile(r"\*\*|__")
MAX_NAMES = 3
# "`cli/args.ts` - CLI argument parsing and help": a module and what it holds
_MODULE_LINE = re.compile(r"^`(?P<name>[^`]+)`\s+(?:-|—|–)\s+(?P<what>[A-Za-z@`][^`]{2,80}?)\s*$")
_CODE_PATH = re.compile(r"/|\.\w{1,4}$")
# "`export.py` - Updated with the fix", "`~/bin/x.py` - Installed version updated": what was done to it, not what it holds
_CHANGED = re.compile(r"\b(?:updated|fixed|added|removed|created|modified|changed|renamed|moved|deleted|copied|replaced|"
                      r"rewritten|refactored|edited)\b", re.IGNORECASE)


def is_closing(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip()), "")
    return bool(_CLOSING.match(_EMPHASIS.sub("", first)))


def _groups(text: str) -> list[list[str]]:
    """The list items of each run of a list, split at the prose or headings between runs; a
    top-level item with items under it is a group of its own."""
    groups: list[list[str]] = []
    run: list[tuple[bool, str]] = []

    def close() -> None:
        if not any(deep for deep, _ in run):
            groups.extend([[item for _, item in run]] if run else [])
        else:
            start = len(groups)
            for deep, item in run:
                if deep and len(groups) > start:
                    groups[-1].append(item)
                else:
                    groups.append([item])
        run.clear()

    for line in text.splitlines():
        found = _ITEM.match(line)
        if found:
            run.append((bool(found.group("indent")), _EMPHASIS.sub("", found.group("text")).strip()))
        elif line.strip():
            close()
    close()
    return groups


def _module_map(group: list[str]) -> str | None:
    """"`cli/args.ts` - CLI argument parsing", … : where each part of the code lives, in one line."""
    parts = [m for item in group if (m := _MODULE_LINE.match(item)) and _CODE_PATH.search(m.group("name"))
             and not _CHANGED.search(m.group("what"))]
    if len(parts) < 2:
        return None
    return "; ".join(f"`{m.group('name')}` holds {_lower(m.group('what').rstrip(' .'))}" for m in parts) + "."


def _lower(text: str) -> str:
    """"System prompt construction" → "system prompt construction"; "CLI parsing" keeps its case."""
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def state_facts(text: str) -> list[tuple[str, str]]:
    """(priority, fact) of a closing summary: its present-state lines, each with the code names of its
    group (high: the code is like that now), and its module maps (medium: where to look, not a trap)."""
    if not is_closing(text):
        return []
    found = []
    for group in _groups(text):
        if mapped := _module_map(group):
            found.append(("medium", mapped))
            continue
        for line in group:
            state = _NOW_STATE.match(line)
            if not state or _STATUS.search(line):
                continue
            named = set(_MODULE.findall(line))
            others = [n for item in group if item is not line for n in _MODULE.findall(item) if n not in named]
            names = list(dict.fromkeys(others))[:MAX_NAMES]
            fact = line.rstrip(" .")
            if names:
                fact += " (" + ", ".join(f"`{n}`" for n in names) + ")"
            found.append(("high", fact + "."))
    return found
