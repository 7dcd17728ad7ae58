"""Repeated instructions, pure: the user asking for the same way of working again and again.

An instruction is a verb with how to do it ("read X in full", "run the tests first", "check it
carefully"): the verb and the manner make its key, whatever the object. The user repeating one is
friction even when no single message is a correction: the agent did not keep to it. Reported when
one key is asked in REPEATS messages or more (in one session or several), or in `min_sessions`
sessions. The fix names what the user asked about (the object said most often: "Run the tests
before committing"); an instruction whose object is never named ("run it first") is no fix.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from memory_pipeline.stages.friction.findings import IMPACT, Finding
from memory_pipeline.stages.friction.said import Said
from memory_pipeline.stages.friction.signals import clip

REPEATS = 3
INSTRUCTION = re.compile(
    r"\b(?P<verb>read|re-read|run|test|check|commit|review|verify|look at|go through|scan)\b"
    r"(?P<object>(?:[^.?!;\n]|\.(?=\S)){0,120}?)\b"
    r"(?P<manner>in full|fully|completely|entirely|the whole (?:file|thing)|end to end|one (?:at a time|by one)|"
    r"first|before (?:\w+ing)|carefully|properly|thoroughly)\b", re.IGNORECASE)


_PRONOUNS = frozenset("it this that them these those everything all stuff things again too".split())


def instruction_object(text: str, key: str) -> str:
    """What the instruction `key` is about in a sentence ("the tests"), "" when only a pronoun."""
    for match in INSTRUCTION.finditer(text):
        if f"{match.group('verb').lower()} … {match.group('manner').lower()}" == key:
            thing = " ".join(match.group("object").split()).strip(" ,;:")
            if thing and not set(thing.lower().split()) <= _PRONOUNS:
                return thing
    return ""


def instruction_keys(text: str) -> list[str]:
    """The instructions a sentence gives, as "verb … manner" keys."""
    keys = []
    for match in INSTRUCTION.finditer(text):
        key = f"{match.group('verb').lower()} … {match.group('manner').lower()}"
        if key not in keys:
            keys.append(key)
    return keys


def instruction_finding(key: str, members: list[Said]) -> Finding | None:
    sessions = list(dict.fromkeys(s.session_id for s in members))
    asks = len({(s.session_id, s.message_id) for s in members})
    verb, manner = key.split(" … ")
    things = Counter(t for t in (instruction_object(s.text, key) for s in members) if t)
    if not things:
        return None  # nothing to name: "run it first" three times says the agent missed something, not what
    top, count = things.most_common(1)[0]
    thing = "files" if verb in ("read", "re-read") and count == 1 and len(things) > 1 else top  # a path each time
    rule = f"{verb[:1].upper()}{verb[1:]} {thing} {manner}"
    draft = (f"{rule} without being asked: the user asked for this {asks} times in {len(sessions)} "
             f"session{'s' if len(sessions) != 1 else ''} (“{clip(members[-1].text, 80)}”).")
    return Finding(kind="instruction", pattern=key, sessions=sessions, occurrences=asks, impact=IMPACT["instruction"],
                   severity=max(len(sessions), asks - 1) * IMPACT["instruction"],
                   evidence=[s.evidence() for s in members], title=clip(f"Lesson: {rule[:1].lower()}{rule[1:]}", 70),
                   draft=draft)


def find_instructions(statements: list[Said], *, min_sessions: int = 2, repeats: int = REPEATS) -> list[Finding]:
    """Every instruction asked `repeats` times or more, or in `min_sessions` sessions."""
    by_key: dict[str, list[Said]] = defaultdict(list)
    for said in sorted(statements, key=lambda s: s.when):
        for key in instruction_keys(said.text):
            if not any(s.message_id == said.message_id and s.session_id == said.session_id for s in by_key[key]):
                by_key[key].append(said)
    findings = []
    for key, members in sorted(by_key.items()):
        if len(members) >= repeats or len({s.session_id for s in members}) >= min_sessions:
            found = instruction_finding(key, members)
            findings += [found] if found else []
    return sorted(findings, key=lambda f: (-f.severity, f.pattern))
