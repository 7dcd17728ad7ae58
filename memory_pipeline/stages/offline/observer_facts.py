"""Facts of one segment for the offline Observer: what the user stated, decided or corrected, and the
root causes, fixes and decisions the agent stated. Edited files and commands go to the narrative."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from memory_pipeline.stages.offline import answers, summary
from memory_pipeline.stages.offline import distil as shape
from memory_pipeline.stages.offline import observer_cues as cues
from memory_pipeline.stages.offline import observer_rules as rules
from memory_pipeline.stages.offline import observer_spec as spec
from memory_pipeline.stages.offline import observer_standing as standing
from memory_pipeline.stages.offline.observer_agreed import agreed
from memory_pipeline.stages.offline.observer_people import personal_fact
from memory_pipeline.stages.offline.observer_update import as_update

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
    agent: bool = False  # the agent's finding (a user's "no, that's not it" takes it back)


def _user_candidates(block: Block, about_code: bool = True) -> list[Candidate]:
    """Corrections, rules, preferences, decisions and the user's stated context (services, versions,
    environments, conventions, abandoned approaches); never questions, greetings or requests."""
    found, mapping, taken = [], [], -1
    said = rules.sentences(block.text)
    for i, sentence in enumerate(said):
        if i == taken:
            continue  # the sentence a correction before it took in ("No. …", "This is not how it works. …")
        cleaned = rules.FILLER.sub("", sentence).strip()
        if cues.MAPPING.match(cleaned) and cues.TURNED_DOWN.search(cleaned):
            continue  # "Database query function → make a custom tool nahhh": the agent's row quoted and turned down
        if cues.MAPPING.match(cleaned) and not cues.is_question(sentence):
            mapping.append(cleaned)
            continue
        if rule := shape.reproach_as_rule(cleaned):  # "how can you say X if you haven't checked Y?"
            found.append(Candidate("high", block.time, f'User corrected the agent: "{rules.clip(rule)}"', [block.ref]))
            continue
        short = len(rules.content_words(cleaned)) < 2 and not (i + 1 < len(said) and cues.DENIES.match(cleaned)) \
            and not (about_code and as_update(cleaned))
        if cues.is_question(sentence) or cues.GREETING.match(cleaned) or short:  # "This is not how it works. X is …"
            continue
        following = said[i + 1] if i + 1 < len(said) else ""
        if about_code and (missed := _not_seen_done(sentence, following)):
            found.append(Candidate("high", block.time, missed, [block.ref]))
            taken = i + 1
            continue
        if fact := user_fact(sentence, following, about_code):
            found.append(Candidate(fact[0], block.time, fact[1], [block.ref]))
            taken = i + 1 if following and shape.distil(following)[:40] in fact[1] else taken
    if mapping:  # a list of "a -> b" lines: where things go, as the user decided it
        found.append(Candidate("high", block.time, f"User decided: {'; '.join(mapping)}", [block.ref]))
    return found


def user_statements(text: str, about_code: bool = True) -> list[str]:
    """The facts the offline Observer keeps of one user message, by themselves (stages/windows.py
    observes a short window that holds one)."""
    if rules.is_meta_user_text(text):
        return []
    return [c.text for c in _user_candidates(Block(None, "User", "m1", text), about_code)]


def _not_seen_done(sentence: str, following: str) -> str | None:
    """"please make sure the files in the working directory are updated. I didn't see any files updated there":
    what the user asks for again after seeing that it was not done, a correction (of work on software)."""
    if not following or not cues.NOT_SEEN.match(following) or not (cues.is_request(sentence) or shape.is_rule(sentence)):
        return None
    if shape.is_task_request(sentence) or not cues.is_self_contained(sentence) or shape.POINTER.search(sentence):
        return None
    return f'User corrected the agent: "{rules.clip(shape.distil(sentence))}"'  # the sentence after it points ("there")


def user_fact(sentence: str, following: str, about_code: bool = True) -> tuple[str, str] | None:
    """(priority, text) of the fact a user sentence states, or None; a bare correction ("No, don't use
    pip here.") takes the sentence after it, which says what to do instead. The words are the
    user's, without the chat around them (stages/offline/distil)."""
    raw, sentence = sentence, shape.distil(sentence)
    if shape.POINTER.search(sentence):
        return None  # "move those files": what it is about is in another turn
    if cues.REJECTS_DIAGNOSIS.match(raw) and not shape.is_stated_rule(cues.REJECTS_DIAGNOSIS.sub("", raw)):
        return None  # "no, that's not it, both use the dark theme": what the cause is not, that day
    if cues.OWN_ACTION.match(sentence) and not shape.STANDING.search(sentence):
        return None  # "let me try the light theme real quick, then …": what the user does next, not a fact
    if (kept := shape.kept_in_mind(raw)) and cues.is_self_contained(kept) and not cues.is_request(kept):
        return "high", f'User stated: "{rules.clip(shape.distil(kept))}"'  # "looks good, but keep in mind X"
    if about_code and (update := as_update(sentence) or as_update(raw)):
        return "high", f'User stated: "{rules.clip(update)}"'  # "We use pnpm now.", "Redis is on 6380, not 6379."
    quoted = f'"{rules.clip(sentence)}"'
    if shape.MISSED.match(sentence) and cues.is_self_contained(sentence):
        rule = shape.missed_as_rule(sentence)
        return "high", f'User corrected the agent: "{rules.clip(rule)}"' if rule else f"User corrected the agent: {quoted}"
    if shape.PENDING_CHANGE.search(sentence):
        return None  # a change still to make, which a later turn may well change
    if cues.corrects(sentence):
        if cues.is_self_contained(cues.CORRECTION.sub("", sentence).strip(" ,.;:")):
            return "high", f"User corrected the agent: {quoted}"
        if following and not cues.is_question(following) and len(rules.content_words(following)) >= 2:
            return "high", f'User corrected the agent: "{rules.clip(sentence + " " + shape.distil(following))}"'
    if (shape.EXPLICIT.match(raw) and cues.is_self_contained(sentence) and not shape.is_task_request(sentence)) or (
            cues.RULE.search(sentence) and shape.is_rule(sentence)) or cues.states_preference(sentence) or (
            shape.is_stated_rule(sentence)):
        return "high", f"User stated: {quoted}"
    if about_code and shape.is_prohibition(sentence):  # "stop committing everything": of what the agent just did
        return "high", f"User corrected the agent: {quoted}"
    if shape.is_how_to(sentence) or (about_code and shape.is_code_requirement(sentence)):
        return "high", f"User stated: {quoted}"
    if about_code and (later := shape.issue_to_open(sentence)):  # work put off, as an issue to open
        return "high", f"{shape.FOLLOW_UP}: {rules.clip(later, 120)}"
    if about_code and shape.is_design_choice(raw) and cues.is_self_contained(sentence):
        return "high", f'User decided: "{rules.clip(shape.unhedged(sentence))}"'  # "i think we would want to include …"
    if about_code and cues.BEFORE_ANY_EDIT.search(sentence) and not cues.is_question(sentence):
        return "high", f"User stated: {quoted}"  # "let's think first, before we change anything"
    if standing.is_answer_style(sentence) or (about_code and standing.is_standing_statement(sentence)):
        return "high", f"User stated: {quoted}"  # "Any change to the public API needs a changelog entry"
    if about_code and spec.specifies_behaviour(sentence):  # "If a piece is on cooldown, moving it queues a pre-move"
        specified = spec.ASKED.sub("", sentence)  # "Make it so X" states X
        if spec.NO_CONCEPT.match(sentence) or cues.is_self_contained(specified):
            return "high", f'User stated: "{rules.clip(shape.distil(specified))}"'
    if cues.is_request(sentence) or shape.is_task_request(sentence):
        return None
    if shape.is_correction_of_fact(sentence) and cues.is_self_contained(sentence):
        return "high", f"User stated: {quoted}"
    if (kind := cues.decision_kind(sentence)) and cues.is_self_contained(sentence):
        return "high", f"User {kind}: {quoted}"
    if (cues.USER_CONTEXT.search(sentence) or cues.NAMED_RULE.search(sentence)) and cues.is_self_contained(sentence):
        return "high", f"User stated: {quoted}"
    if about_code and cues.DESIGN_PROPERTY.search(sentence) and cues.is_self_contained(sentence):
        return "high", f"User stated: {quoted}"
    if (about_code and cues.CAUSE_FOUND.match(sentence) and not cues.MOMENT_REF.search(sentence)
            and not cues.HEDGE.search(sentence) and cues.is_self_contained(sentence)):
        return "high", f"User stated: {quoted}"  # "the bug was that the cache key ignored the tenant id"
    if (cues.USER_DESIGN.search(sentence) and not cues.EMBEDDED_QUESTION.search(sentence)
            and len(sentence.split()) >= 6 and cues.is_self_contained(sentence)):
        return "high", f"User stated: {quoted}"
    if cues.FAILURE.search(sentence) and not cues.ERROR_LINE.match(sentence) and cues.is_self_contained(sentence):
        return "medium", f"User reported: {quoted}"
    return None


def _assistant_candidates(block: Block, about_code: bool = True) -> list[Candidate]:
    """Root causes, fixes, decisions and state changes the agent states; no running commentary or status.
    Outside work on software (`observer_rules.about_code`) a sentence to "you", a reason ("due to",
    "since"), an "always" or "never" and an "instead of" are how advice and general knowledge read ("In
    winter, plants need less water due to lower temperatures"): there only a root cause, a decision, a
    change made, how something behaves or an abandoned approach counts, and none is high: an agent with no
    tools found nothing in the user's work ("Often caused by smoking", "the US Mint switched to steel
    cents" are what it knows)."""
    found = []
    found_here = "high" if about_code else "medium"  # a chat's agent has no tools: what it found, it knew
    for sentence in (cues.ACK_LEAD.sub("", s) for s in rules.sentences(block.text)):
        if (finding := cues.named_finding(sentence)) and cues.is_self_contained(finding):  # "Key finding: X"
            found.append(Candidate(found_here, block.time, f"Finding: {rules.clip(finding)}", [block.ref]))
            continue
        if cues.is_question(sentence) or rules.is_fragment(sentence) or cues.COMMENTARY.search(sentence):
            continue
        if not cues.is_self_contained(sentence) or cues.TASK_STATUS.match(sentence) or cues.CHANGE_LOG.match(sentence):
            continue
        if _not_a_finding(sentence) or (not about_code and shape.addresses_reader(sentence)):
            continue
        text, claim = rules.clip(sentence), claim_of(sentence)
        decided = cues.ASSISTANT_DECISION.search(sentence if about_code else cues.INSTEAD_OF.sub("", sentence))
        if cues.ROOT_CAUSE.search(sentence):
            found.append(Candidate(found_here, block.time, text, [block.ref]))
        elif (decided and not cues.RESULT.search(sentence)) or (
            cues.STATE_CHANGE.search(sentence) and not cues.FUTURE.search(sentence)
        ):
            found.append(Candidate(found_here, block.time, text, [block.ref]))
        elif about_code and cues.REASON.search(sentence) and not (shape.PASSING.search(claim) or cues.FUTURE.search(sentence)
                                                                  or cues.PERSON_CLAIM.match(claim)
                                                                  or rules.COMPLETION.search(claim)):
            found.append(Candidate("high", block.time, text, [block.ref]))
        elif (cues.BEHAVIOUR.search(sentence) or (about_code and _code_behaviour(sentence))) \
                and not cues.FUTURE.search(claim):
            found.append(Candidate("medium", block.time, text, [block.ref]))
        elif cues.FAILURE.search(sentence) and cues.ABANDONED.search(sentence):
            found.append(Candidate("medium", block.time, f"Failed approach: {text}", [block.ref]))
        elif about_code and cues.INVARIANT.search(rules.ASIDE.sub("", sentence)) \
                and not cues.FUTURE.search(cues.CAN_NEVER.sub("", sentence)) \
                and not (cues.UNUSED.search(sentence) and not cues.REASON.search(sentence)):
            found.append(Candidate("medium", block.time, text, [block.ref]))
    return found


def _code_behaviour(sentence: str) -> bool:
    """How a tool or the code behaves (`observer_cues.CODE_BEHAVIOUR`), not said of the agent or the reader, of this
    session's change ("exports are now copied …") or a passing state ("currently"), nor said in an aside ("Generate the
    XML file (using `--format all` by default)") or a list item whose subject is its heading ("Only watches the active theme")."""
    return (bool(cues.CODE_BEHAVIOUR.search(rules.ASIDE.sub("", sentence))) and not cues.PERSON_CLAIM.match(sentence)
            and not cues.NOW.search(sentence) and not shape.PASSING.search(sentence) and not shape.is_plan_step(sentence)
            and not cues.ONLY_LEAD.match(sentence))


def _not_a_finding(sentence: str) -> bool:
    """A plan step ("Use X instead of Y"), an outline label ("Naming clarity: …"), a pointer to
    something only the session shows ("that branch", "at line 543"), advice to the person it talks to ("Remember to
    always…"), the agent's own tool failing, a guess ("I bet …", "it might be …") or a wish ("I hope …"), or a reason that
    names a passing state ("…because the code still uses…", "The build is failing because …"): none is
    what the project is."""
    return (shape.is_plan_step(sentence) or shape.is_outline_label(sentence) or bool(shape.POINTER.search(sentence))
            or bool(cues.ELIDED_SUBJECT.match(sentence)) or bool(cues.MOMENT_REF.search(sentence))
            or shape.is_advice(sentence)
            or shape.is_own_tool_failure(sentence) or shape.is_tool_report(sentence) or _guesses(sentence)
            or shape.is_session_change(sentence) or shape.is_proposed_fix(sentence)
            or (bool(cues.REASON.search(sentence)) and bool(shape.PASSING.search(sentence) or
                                                           cues.STATUS_NOW.search(claim_of(sentence)))
                and not cues.ROOT_CAUSE.search(sentence)))


def _guesses(sentence: str) -> bool:
    """A guess or a wish ("I hope it turns out a success"): neither says what is so."""
    return bool(cues.HEDGE.search(sentence) or cues.WISH.search(sentence)
                or (cues.MIGHT.search(sentence) and not cues.ROOT_CAUSE.search(sentence)))


def claim_of(sentence: str) -> str:
    """What a sentence claims, before its reason ("X is unused because the code still …" → "X is unused")."""
    found = cues.CLAIM.match(sentence)
    return found.group(1) if found else sentence


def _personal_candidates(segment: list[Block]) -> list[Candidate]:
    """In a chat log: one fact per message that tells something about its speaker."""
    return [Candidate("medium", b.time, fact, [b.ref]) for b in segment
            if b.role in ("User", "Assistant") and (fact := personal_fact(b.text))]


def noteworthy_commands(segment: list[Block], limit: int = 3) -> list[str]:
    """The segment's first few noteworthy commands (commits, installs, migrations), for its narrative."""
    commands: dict[str, str] = {}
    for block in segment:
        for name, args in block.calls if block.role == "Assistant" else []:
            if (command := rules.noteworthy_command(name, args)) and rules.command_key(command) not in commands:
                commands[rules.command_key(command)] = command
    return list(commands.values())[:limit]


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


def _choice(block: Block, asked: Block | None) -> list[Candidate] | None:
    """The user's answer to the agent's question tool: one decision (stages/offline/answers), or
    nothing when it only says what comes next; None when the agent asked no question with a tool."""
    if asked is None or not answers.asked_with_tool(asked.calls):
        return None
    made = answers.decision(asked.text, block.text)
    return [Candidate("high", block.time, rules.clip(made, 280), [asked.ref, block.ref])] if made else []


def _answer(block: Block, asked: Block | None) -> list[Candidate]:
    """"yes need to be fully clean" after the agent asked "There's an unused import warning … Want me
    to clean that up too?": the answer with what it answers, so its subject is named."""
    if asked is None:
        return []
    said = rules.sentences(asked.text)
    offered = bool(said) and said[-1].rstrip().endswith("?") and shape.is_offer(said[-1])
    rest = shape.answer_rest(block.text) if offered else None
    if not rest or cues.is_request(rest) or shape.is_task_request(rest) or cues.is_question(rest):
        return []
    question = rules.clip(" ".join(said[-2:]), 160)
    return [Candidate("high", block.time, f'User answered "{question}": "{rules.clip(shape.distil(rest), 120)}"',
                      [asked.ref, block.ref])]


_PRONOUN_OBJECT = re.compile(r"\b(?:put|move|show|keep|add|use|make|send|do|store|run|call|flush|queue) (?:it|them)\b",
                             re.IGNORECASE)


def _about(candidate: Candidate, topic: str) -> Candidate:
    """A correction that names its subject only as "it" ("no, we want to put it in the pending area")
    carries what the user was talking about in that stretch of work."""
    if not topic or not candidate.text.startswith("User corrected the agent:") or not _PRONOUN_OBJECT.search(
            candidate.text) or rules.similar(topic, candidate.text):
        return candidate
    return Candidate(candidate.priority, candidate.time, f'{candidate.text} (about: "{rules.clip(topic, 100)}")',
                     candidate.refs)


def facts_for(segment: list[Block], chat_log: bool = False, before: Block | None = None,
              about_code: bool = True, also: dict[int, Candidate] | None = None) -> list[Candidate]:
    """The facts of one segment; `before` is the block just before it (a question the first turn answers);
    `about_code`: whether its window is work on software (`observer_rules.about_code`); `also`: facts of
    the whole window that land in this segment, by the `id()` of the block they follow (a request asked
    again, at its last asking)."""
    if chat_log:
        return _personal_candidates(segment)
    candidates: list[Candidate] = []
    previous, topic, since_asked = before, "", 0
    for block in segment:
        if block.role == "User" and not rules.is_meta_user_text(block.text):
            if cues.REJECTS_DIAGNOSIS.match(block.text):  # "no, that's not it": what the agent found since the
                # user asked ("any idea why the colors differ?") was wrong
                candidates = candidates[:since_asked] + [c for c in candidates[since_asked:] if not c.agent]
            asked = previous if previous is not None and previous.role == "Assistant" else None
            chose = _choice(block, asked)
            said = chose if chose is not None else _answer(block, asked) or _user_candidates(block, about_code)
            candidates += [_about(c, topic) for c in said]
            ask = rules.intent(block.text)
            topic = ask if len(rules.content_words(ask)) >= 4 else topic
            since_asked = len(candidates) if "?" in block.text else since_asked
        elif block.role == "Assistant":
            if about_code and previous is not None and previous.role == "User" and block.text:  # "…X?" "Good idea."
                candidates += [Candidate("high", previous.time, f'User decided: "{rules.clip(made)}"',
                                         [previous.ref, block.ref]) for made in agreed(previous.text, block.text)]
            candidates += [replace(c, agent=True) for c in _assistant_candidates(block, about_code)]
            candidates += [Candidate(priority, block.time, rules.clip(fact, 280), [block.ref])
                           for priority, fact in summary.state_facts(block.text)]
        if also and id(block) in also:
            candidates.append(also[id(block)])
        if block.role in ("User", "Assistant") and (block.text or block.role == "User"):
            previous = block
    return _select(candidates)  # edits and commands are the narrative's, not facts
