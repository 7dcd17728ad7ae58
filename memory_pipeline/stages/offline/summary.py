"""The agent's closing summary of finished work: what the code is like now.

A summary ("All done. Here's a summary of …") is mostly a change log, which the narrative keeps. One
kind of line in it outlasts the task: a present state of the code it names ("Both `SessionLive` and
`SubagentLive` now use the shared pipeline"). Its subject is often named only by the lines around it,
so the code names its group lists (the modules "the shared pipeline" is made of) come with it.
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


def is_closing(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip()), "")
    return bool(_CLOSING.match(_EMPHASIS.sub("", first)))


def _groups(text: str) -> list[list[str]]:
    """The sub-items of each top-level item (or the top-level items when there is no nesting)."""
    groups: list[list[str]] = [[]]
    for line in text.splitlines():
        found = _ITEM.match(line)
        if not found:
            continue
        item = _EMPHASIS.sub("", found.group("text")).strip()
        if not found.group("indent"):
            groups.append([item])
        else:
            groups[-1].append(item)
    return [g for g in groups if g]


def state_facts(text: str) -> list[str]:
    """The present-state lines of a closing summary, each with the code names of its group."""
    if not is_closing(text):
        return []
    found = []
    for group in _groups(text):
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
            found.append(fact + ".")
    return found
