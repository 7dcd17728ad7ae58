"""Observation facts -> new ledger events: typed, linked to what they supersede, close or relate to.

Pure: the caller hands in the classification of each fact (offline rules or the model), the
ledger's current state and a similarity function (embeddings in the flow). Each new event is
applied to the state at once, so a later fact of the same day can supersede an earlier one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice

from memory_pipeline.stages.alternatives import replaces_alternative
from memory_pipeline.stages.index.sparse import tokenize
from memory_pipeline.stages.ledger.change import advice_only
from memory_pipeline.stages.ledger.classify import Classified, closes_commitment, plain_text
from memory_pipeline.stages.ledger.model import DEFAULT_PROJECT, LedgerEvent, event_id, id_parts
from memory_pipeline.stages.ledger.state import LedgerState
from memory_pipeline.stages.ledger.subject import same_subject, subject_words
from memory_pipeline.stages.offline.observer_update import replaced_terms, states_update
from memory_pipeline.stages.restatement import says_again

Similarity = Callable[[str, list[str]], list[float]]  # (text, others) -> cosine-like scores in [0, 1]

CHANGE_SIMILARITY = 0.4  # a fact saying "moved from X to Y" supersedes an active fact this close about X
# (and naming the same thing: stages/ledger/subject.py)
UPDATE_SIMILARITY = 0.8  # a near-restatement with other numbers ("port 6380" after "port 6379") updates it
# an update of the work ("We use pnpm now", "Redis is on port 6380, not 6379": stages/offline/observer_update.py)
# supersedes the closest active fact of its project this close that speaks of the same thing or names the value
# it replaces, whatever entity each was filed under ("Tests run on Vitest now, not Jest" / "Our tests run on Jest")
UPDATE_ANY_SIMILARITY = 0.45
UPDATE_POOL = 200  # the newest active events of the project an update is compared with
CLOSE_SIMILARITY = 0.5  # "fixed the flaky test" closes "need to fix the flaky test" (same entity)
CLOSE_ANY_SIMILARITY = 0.7  # ... or any open commitment this close
RELATED_SIMILARITY = 0.5
MAX_RELATED = 3
_NUMBER = re.compile(r"\d+(?:\.\d+)*")


@dataclass(frozen=True)
class FactInput:
    """One observation fact on its way into the ledger, with its provenance."""

    fact_id: str
    text: str
    observer_priority: str
    day: str  # the partition day: the event id's day
    ts: datetime  # when it was recorded (the observation's capture time)
    source: str  # memory/YYYY-MM-DD.md
    session: str | None = None
    message_ids: list[str] = field(default_factory=list)
    valid_from: datetime | None = None  # when it became true (the message time), if known
    project: str | None = None
    scope: str = "project"  # "user": a preference about the user, in every project's pack
    roles: tuple[str, ...] = ()  # who said it: user, relayed, assistant, tool, file, web, summary (stages/provenance)
    chat: bool = False  # its observation is a conversation about the user's life, not work on software (`is_chat`)


USER_LEVEL_TAG = "user-level"


def numbers_differ(a: str, b: str) -> bool:
    first, second = set(_NUMBER.findall(a)), set(_NUMBER.findall(b))
    return bool(first) and bool(second) and first != second


def next_numbers(ids: list[str]) -> dict[str, int]:
    """The next free number per id day (YYYYMMDD), from every id ever used (ledger and archive)."""
    found: dict[str, int] = {}
    for value in ids:
        parts = id_parts(value)
        if parts:
            found[parts[0]] = max(found.get(parts[0], 0), parts[1])
    return {day: n + 1 for day, n in found.items()}


def _supersedes(kind: Classified, content: str, candidates: list[LedgerEvent], scores: list[float],
                roles: tuple[str, ...]) -> str | None:
    change = kind.change and not advice_only(content, roles)
    for event, score in sorted(zip(candidates, scores, strict=False), key=lambda p: p[0].ts, reverse=True):
        if event.type == "commitment" and kind.type != "commitment":
            continue
        qualifies = (change and score >= CHANGE_SIMILARITY) or (
            score >= UPDATE_SIMILARITY and numbers_differ(content, event.content))
        if qualifies and same_subject(content, event.content, kind.entity):  # tokenized only when it qualifies
            return event.id
    return None


def _updated(content: str, entity: str | None, state: LedgerState, project: str, similarity: Similarity) -> str | None:
    """The active fact of `project` that the update `content` replaces: the closest of the newest
    `UPDATE_POOL` that says another tool of the same job is used (`alternatives.replaces_alternative`, at any
    similarity: MiniLM puts "We use pnpm now" nearer "We use pytest" than "We use npm"), or is at least
    `UPDATE_ANY_SIMILARITY` close and shares a subject word with it (beyond the entities each is filed under) or
    states a value it says it replaces; None when none does."""
    pool = list(islice((e for e in reversed(state.events.values()) if e.project == project
                        and e.type != "commitment" and not e.closes and state.is_active(e.id)), UPDATE_POOL))
    if not pool:
        return None
    named = set(tokenize(" ".join(replaced_terms(content)))) - set(tokenize(entity or ""))
    best: tuple[float, str] | None = None
    for event, score in zip(pool, similarity(content, [e.content for e in pool]), strict=True):
        if best is not None and score <= best[0]:
            continue
        if replaces_alternative(content, event.content):  # "We use pnpm now" / "We use npm for this repo"
            best = (score, event.id)
            continue
        if score < UPDATE_ANY_SIMILARITY:
            continue
        names = " ".join(filter(None, (entity, event.entity)))  # what each is filed under names no shared thing
        if subject_words(content, names) & subject_words(event.content, names) or named & set(tokenize(event.content)) \
                or (entity and event.entity == entity and (said := predicate(content, entity)) is not None
                    and said == predicate(event.content, entity)):
            best = (score, event.id)
    return best[1] if best else None


_WORDS = re.compile(r"[a-z][a-z'-]*")
# "is on", "has": what a copula says of a thing is too many things ("Redis is on port 6380" / "Redis is on the old box")
_COPULA = frozenset({"is", "are", "was", "were", "has", "have", "'s", "isn't", "aren't"})


def predicate(text: str, entity: str) -> tuple[str, ...] | None:
    """The two words after the entity's name when they open with a verb of its own ("Deploys go through Jenkins" →
    ("go", "through")): what is said of it, the same in an update of the same thing ("Deploys go through Argo CD
    now"); None when the name is not there or a copula follows it."""
    words = _WORDS.findall(text.lower())
    at = next((n for n, word in enumerate(words) if tokenize(word) == tokenize(entity)), None)
    said = tuple(words[at + 1:at + 3]) if at is not None else ()
    return said if said and said[0] not in _COPULA else None


def _closes(state: LedgerState, kind: Classified, content: str, similarity: Similarity) -> list[str]:
    if kind.type == "commitment" or not closes_commitment(content) or not state.open_loops:
        return []
    loops = [state.events[i] for i in state.open_loops]
    scores = similarity(content, [e.content for e in loops])
    best = max(zip(scores, loops, strict=False), key=lambda p: p[0], default=None)
    if best is None:
        return []
    score, loop = best
    same = kind.entity is not None and loop.entity == kind.entity
    return [loop.id] if score >= (CLOSE_SIMILARITY if same else CLOSE_ANY_SIMILARITY) else []


def derive_event(fact: FactInput, kind: Classified, state: LedgerState, similarity: Similarity,
                 numbers: dict[str, int]) -> LedgerEvent:
    """One new event for `fact`, linked against `state`, applied to it; `numbers` advances."""
    content = plain_text(fact.text) or fact.text.strip()
    project = fact.project or DEFAULT_PROJECT  # one project's fact never supersedes another's
    candidates = [e for e in state.active_about(kind.entity) if not e.closes and e.project == project]
    scores = similarity(content, [e.content for e in candidates]) if candidates else []
    supersedes = _supersedes(kind, content, candidates, scores, fact.roles)
    if supersedes is None and not fact.chat and states_update(content) is not None:
        supersedes = _updated(content, kind.entity, state, project, similarity)
    related = [e.id for e, s in sorted(zip(candidates, scores, strict=False), key=lambda p: p[0].ts, reverse=True)
               if s >= RELATED_SIMILARITY and e.id != supersedes][:MAX_RELATED]
    closes = _closes(state, kind, content, similarity)
    day_key = fact.day.replace("-", "")
    number = numbers.get(day_key, 1)
    numbers[day_key] = number + 1
    event = LedgerEvent(
        ts=fact.ts, id=event_id(fact.day, number), type="commitment" if closes else kind.type,
        priority=kind.priority, content=content, entity=kind.entity,
        tags=kind.tags + ([USER_LEVEL_TAG] if fact.scope == "user" else []), source=fact.source,
        session=fact.session, message_ids=fact.message_ids, fact_id=fact.fact_id,
        related=closes + [r for r in related if r not in closes], supersedes=supersedes,
        status="closed" if closes else kind.status, project=project,
        valid_from=fact.valid_from, said_by=list(dict.fromkeys(fact.roles)),
    )
    state.apply(event)
    return event


def restated(fact: FactInput, content: str, kind: Classified, state: LedgerState) -> str | None:
    """The active event of the same session, project, subject, type and speakers that `fact` (its words as the ledger
    holds them: `content`) says again in other words (`restatement.says_again`): one statement, not two lines of the
    pack. None when there is none."""
    if fact.session is None:
        return None
    project = fact.project or DEFAULT_PROJECT
    return next((event.id for event in state.active_about(kind.entity)
                 if event.session == fact.session and event.project == project and event.type == kind.type
                 and not event.closes and event.said_by == list(dict.fromkeys(fact.roles))
                 and says_again(event.content, content)), None)


def derive_events(facts: list[FactInput], kinds: list[Classified], state: LedgerState, similarity: Similarity,
                  numbers: dict[str, int]) -> list[LedgerEvent]:
    """New events for the facts the ledger has not seen yet, in order; a fact its session already put in the
    ledger in other words (`restated`) adds none."""
    events = []
    for fact, kind in zip(facts, kinds, strict=True):
        content = plain_text(fact.text) or fact.text.strip()
        if state.seen(fact.fact_id, fact.session, content) or restated(fact, content, kind, state):
            continue
        events.append(derive_event(fact, kind, state, similarity, numbers))
    return events
