"""A memory contradicted by recent observations, pure.

A memory is an approved MEMORY.md line (a bullet under a `## Section`) or an active ledger event
(a fact, decision, preference or constraint nothing superseded). A recent statement contradicts
it when
- both state the same setting with other values (drift.settings_in: "Use Node 18" / "node 20"), or
- the ledger's conflict rule says they disagree (stages/ledger/conflicts.py: nearly the same words
  with other numbers, or opposite polarity).
A ledger event is only contradicted by what was said after it, from other messages than its own,
and never by a sentence of a message that restates it whole ("No, don't use pip here. This repo
uses uv" does not contradict "don't use pip" through its second sentence).
Reported when the contradicting statements come from at least `min_sessions` sessions and the
latest statement of the setting does not agree with the memory again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory_pipeline.models import MEMORY_SECTIONS
from memory_pipeline.stages.friction.drift import settings_in
from memory_pipeline.stages.friction.findings import IMPACT, Finding
from memory_pipeline.stages.friction.said import Said
from memory_pipeline.stages.friction.signals import clip
from memory_pipeline.stages.ledger.conflicts import signature, signatures_disagree
from memory_pipeline.stages.ledger.model import LedgerEvent
from memory_pipeline.stages.proposal_ids import ID_TEXT

_BULLET = re.compile(r"^\s*[-*]\s+(?:\[[ x]\]\s+)?(?P<text>.+?)\s*$")
_MARKS = re.compile(rf"\s*(?:\[verified:[^\]]*\]|<!--.*?-->|\((?:{ID_TEXT}|EVT-[\w-]+)[^)]*\))\s*")
LEDGER_TYPES = ("fact", "decision", "preference", "constraint")


@dataclass(frozen=True)
class Memory:
    text: str
    where: str  # "MEMORY.md" or the ledger event's id
    section: str = "Lessons"
    since: str = ""  # the day it was recorded ("" for MEMORY.md lines: any recent statement counts)
    message_ids: tuple[str, ...] = ()


def memory_lines(memory_md: str) -> list[Memory]:
    """The bullets of MEMORY.md's own sections, their review marks left out."""
    found, section = [], ""
    for line in memory_md.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
            continue
        bullet = _BULLET.match(line)
        if bullet and section in MEMORY_SECTIONS:
            text = _MARKS.sub(" ", bullet.group("text")).strip()
            if len(text.split()) >= 2:
                found.append(Memory(text=text, where="MEMORY.md", section=section))
    return found


def ledger_memories(events: list[LedgerEvent]) -> list[Memory]:
    return [Memory(text=e.content, where=e.id, since=e.ts.date().isoformat(), message_ids=tuple(e.message_ids))
            for e in events if e.type in LEDGER_TYPES]


@dataclass(frozen=True)
class Statement:
    said: Said
    settings: dict[str, str]
    signature: tuple


def contradicts(memory: Memory, memory_settings: dict[str, str], memory_signature: tuple, statement: Statement) -> bool:
    said = statement.said
    if memory.since and (said.day < memory.since or said.message_id in memory.message_ids):
        return False
    if any(statement.settings.get(key, value) != value for key, value in memory_settings.items()):
        return True
    return signatures_disagree(memory_signature, statement.signature)


def _agrees_last(memory_settings: dict[str, str], statements: list[Statement]) -> bool:
    """Whether the latest statement of the memory's setting says what the memory says."""
    for statement in reversed(statements):
        shared = [key for key in memory_settings if key in statement.settings]
        if shared:
            return all(statement.settings[key] == memory_settings[key] for key in shared)
    return False


def contradiction_finding(memory: Memory, against: list[Said]) -> Finding:
    sessions = list(dict.fromkeys(s.session_id for s in against))
    latest, first = against[-1], against[0]
    source = f"MEMORY.md ({memory.section})" if memory.where == "MEMORY.md" else f"the ledger's {memory.where}"
    draft = (f"Now: {latest.text.rstrip('.')} — this replaces “{memory.text.rstrip('.')}” from {source}, "
             f"contradicted in {len(sessions)} sessions since {first.day}.")
    return Finding(kind="contradiction", pattern=memory.text, sessions=sessions, occurrences=len(against),
                   impact=IMPACT["contradiction"], severity=len(sessions) * IMPACT["contradiction"],
                   evidence=[s.evidence() for s in against], section=memory.section,
                   title=clip(f"Out of date: {memory.text}", 70), draft=draft)


def message_signatures(statements: list[Said]) -> dict[tuple[str, str], tuple]:
    """Each message's signature, its sentences taken together."""
    texts: dict[tuple[str, str], list[str]] = {}
    for said in statements:
        texts.setdefault((said.session_id, said.message_id), []).append(said.text)
    return {key: signature(" ".join(parts)) for key, parts in texts.items()}


def restates(message: tuple, memory: tuple) -> bool:
    """Whether a message says all a memory says, with its polarity and numbers."""
    (words, numbers, negated), (memory_words, memory_numbers, memory_negated) = message, memory
    return bool(memory_words) and memory_words <= words and memory_numbers <= numbers and negated == memory_negated


def find_contradictions(memories: list[Memory], statements: list[Said], *, min_sessions: int = 2) -> list[Finding]:
    """Every memory that statements from `min_sessions` sessions or more contradict."""
    findings = []
    ordered = [Statement(s, dict(settings_in(s.text)), signature(s.text))
               for s in sorted(statements, key=lambda s: s.when)]
    by_word: dict[str, list[int]] = {}
    for index, statement in enumerate(ordered):
        for word in statement.signature[0] | set(statement.settings):
            by_word.setdefault(word, []).append(index)
    messages = message_signatures(statements)
    for memory in memories:
        memory_settings, memory_signature = dict(settings_in(memory.text)), signature(memory.text)
        near = sorted({i for word in memory_signature[0] | set(memory_settings) for i in by_word.get(word, [])})
        against = [ordered[i].said for i in near
                   if contradicts(memory, memory_settings, memory_signature, ordered[i])
                   and not restates(messages[(ordered[i].said.session_id, ordered[i].said.message_id)], memory_signature)]
        if len({s.session_id for s in against}) < min_sessions:
            continue
        if memory_settings and _agrees_last(memory_settings, ordered):
            continue
        findings.append(contradiction_finding(memory, against))
    return sorted(findings, key=lambda f: (-f.severity, f.pattern))
