"""Facts of one segment for the offline Observer: cue-phrase sentences, edited files, key commands."""

from __future__ import annotations

from dataclasses import dataclass, field

from memory_pipeline.stages.offline import observer_rules as rules
from memory_pipeline.stages.offline.observer_people import personal_fact

CAPS = {"high": 8, "medium": 6, "low": 3}


@dataclass
class Block:
    """One `[HH:MM] [Role] (mN): …` block; `calls` holds its `→ Name(args)` lines."""

    time: str | None
    role: str
    ref: str
    text: str = ""
    calls: list[tuple[str, str]] = field(default_factory=list)

    @property
    def minutes(self) -> int | None:
        return None if self.time is None else int(self.time[:2]) * 60 + int(self.time[3:])

    @property
    def is_user_intent(self) -> bool:
        return self.role == "User" and not rules.is_meta_user_text(self.text) and bool(rules.sentences(self.text))


@dataclass
class Candidate:
    """A fact on its way into the XML answer."""

    priority: str
    time: str | None
    text: str
    refs: list[str]


def _user_candidates(block: Block) -> list[Candidate]:
    """Corrections, rules, preferences and decisions the user states; never questions or greetings."""
    found, mapping = [], []
    for sentence in rules.sentences(block.text):
        cleaned = rules.FILLER.sub("", sentence).strip()
        if rules.MAPPING.match(cleaned) and not rules.is_question(sentence):
            mapping.append(cleaned)
            continue
        if rules.is_question(sentence) or rules.GREETING.match(cleaned) or len(rules.content_words(cleaned)) < 2:
            continue
        quoted = f'"{rules.clip(sentence)}"'
        if rules.CORRECTION.search(sentence) and rules.is_self_contained(rules.CORRECTION.sub("", sentence).strip(" ,.;:")):
            found.append(Candidate("high", block.time, f"User corrected the agent: {quoted}", [block.ref]))
        elif rules.RULE.search(sentence) or rules.PREFERENCE.search(sentence):
            found.append(Candidate("high", block.time, f"User stated: {quoted}", [block.ref]))
        elif rules.DECISION.search(sentence) and rules.is_self_contained(sentence):
            found.append(Candidate("high", block.time, f"User decided: {quoted}", [block.ref]))
        elif rules.USER_DESIGN.search(sentence) and len(sentence.split()) >= 6 and rules.is_self_contained(sentence):
            found.append(Candidate("high", block.time, f"User stated: {quoted}", [block.ref]))
        elif rules.FAILURE.search(sentence) and not rules.ERROR_LINE.match(cleaned) and rules.is_self_contained(sentence):
            found.append(Candidate("medium", block.time, f"User reported: {quoted}", [block.ref]))
    if mapping:  # a list of "a -> b" lines: where things go, as the user decided it
        found.append(Candidate("high", block.time, f"User decided: {'; '.join(mapping)}", [block.ref]))
    return found


def _assistant_candidates(block: Block) -> list[Candidate]:
    """Root causes, fixes, decisions and state changes the agent states; no running commentary or status."""
    found = []
    for sentence in rules.sentences(block.text):
        if rules.is_question(sentence) or rules.is_fragment(sentence) or rules.COMMENTARY.search(sentence):
            continue
        if not rules.is_self_contained(sentence) or rules.TASK_STATUS.match(sentence):
            continue
        text = rules.clip(sentence)
        if rules.ROOT_CAUSE.search(sentence):
            found.append(Candidate("high", block.time, text, [block.ref]))
        elif rules.ASSISTANT_DECISION.search(sentence) or (
            rules.STATE_CHANGE.search(sentence) and not rules.FUTURE.search(sentence)
        ):
            found.append(Candidate("high", block.time, text, [block.ref]))
        elif rules.REASON.search(sentence) and not (rules.TRANSIENT.search(sentence) or rules.FUTURE.search(sentence)):
            found.append(Candidate("high", block.time, text, [block.ref]))
        elif rules.FAILURE.search(sentence) and rules.ABANDONED.search(sentence):
            found.append(Candidate("medium", block.time, f"Failed approach: {text}", [block.ref]))
        elif rules.INVARIANT.search(sentence) and not rules.FUTURE.search(sentence):
            found.append(Candidate("medium", block.time, text, [block.ref]))
    return found


def _personal_candidates(segment: list[Block]) -> list[Candidate]:
    """In a chat log: one fact per message that tells something about its speaker."""
    return [Candidate("medium", b.time, fact, [b.ref]) for b in segment
            if b.role in ("User", "Assistant") and (fact := personal_fact(b.text))]


def _tool_candidates(segment: list[Block]) -> list[Candidate]:
    """One fact per modified file (with the agent's stated intent) and per noteworthy command."""
    edits: dict[str, Candidate] = {}
    commands: dict[str, Candidate] = {}
    purpose, age = "", 0
    for block in segment:
        age += 1
        if block.role == "User" or age > 4:
            purpose = ""
        if block.role != "Assistant":
            continue
        stated = [p for s in rules.sentences(block.text) if (p := rules.purpose(s))]
        if stated:
            purpose, age = stated[0], 0
        for name, args in block.calls:
            if path := rules.edited_path(name, args):
                if path in edits:
                    edits[path].refs.append(block.ref)
                else:
                    why = f" — {purpose}" if purpose else ""
                    edits[path] = Candidate("medium", block.time, f"Modified `{path}`{why}", [block.ref])
            elif (command := rules.noteworthy_command(name, args)) and rules.command_key(command) not in commands:
                commands[rules.command_key(command)] = Candidate("medium", block.time, f"Ran `{command}`", [block.ref])
    return list(edits.values()) + list(commands.values())[:3]


def _select(candidates: list[Candidate]) -> list[Candidate]:
    """Merge near-identical facts, cap each priority, most important first."""
    kept: list[Candidate] = []
    for candidate in candidates:
        twin = next((k for k in kept if rules.similar(k.text, candidate.text)), None)
        if twin:
            twin.refs.extend(r for r in candidate.refs if r not in twin.refs)
        else:
            kept.append(candidate)
    ordered = []
    for priority in ("high", "medium", "low"):
        ordered += [c for c in kept if c.priority == priority][: CAPS[priority]]
    return ordered


def facts_for(segment: list[Block], chat_log: bool = False) -> list[Candidate]:
    if chat_log:
        return _personal_candidates(segment)
    candidates: list[Candidate] = []
    for block in segment:
        if block.role == "User" and not rules.is_meta_user_text(block.text):
            candidates += _user_candidates(block)
        elif block.role == "Assistant":
            candidates += _assistant_candidates(block)
    return _select(candidates + _tool_candidates(segment))
