"""The `ledger` asset's work: a day's observation facts become typed events in memory/ledger.jsonl.

Facts are typed by the model (prompts/ledger.md) or the offline rules, linked against the ledger
(supersession, closed commitments, chains) with embedding similarity, and appended under the
ledger lock. Facts already in the ledger are skipped, so re-running a day adds nothing. The
open-loops index and checkpoint advance; the superseded map (for recall) and the entity
snapshot are rewritten.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np
from pydantic import ValidationError

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import LLMUsage, Observation
from memory_pipeline.ports import Completer, Embedder
from memory_pipeline.prompts import Prompt
from memory_pipeline.resources.files.ledger_files import LedgerFiles
from memory_pipeline.resources.files.observation_files import load_observations
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.ledger.classify import Classified, by_provenance, is_chat_observation, plain_text
from memory_pipeline.stages.ledger.derive import FactInput, Similarity, derive_events, next_numbers
from memory_pipeline.stages.ledger.event_typing import facts_block, parse_typing
from memory_pipeline.stages.ledger.index import (
    advance_open_loops,
    checkpoint,
    entity_snapshot,
    events_after,
    rebuild_open_loops,
)
from memory_pipeline.stages.ledger.integrity import IntegrityReport, structural_checks
from memory_pipeline.stages.ledger.model import LedgerEvent, event_id, snake_entity
from memory_pipeline.stages.ledger.state import LedgerState

BATCH = 40  # facts per typing call


@dataclass
class LedgerDayResult:
    appended: list[LedgerEvent] = field(default_factory=list)
    facts: int = 0
    usage: LLMUsage = field(default_factory=LLMUsage)
    report: IntegrityReport | None = None

    @property
    def superseding(self) -> list[LedgerEvent]:
        return [e for e in self.appended if e.supersedes]


def fact_inputs(day: str, observations: list[Observation]) -> list[FactInput]:
    found = []
    for o in sorted(observations, key=lambda o: (o.captured_at, o.id)):
        chat = is_chat_observation(o)
        for fact in o.facts:
            valid = None
            if fact.time:
                hour, minute = (int(x) for x in fact.time.split(":"))
                valid = o.captured_at.replace(hour=hour, minute=minute, second=0, microsecond=0)
            found.append(FactInput(fact_id=fact.id, text=fact.text, observer_priority=fact.priority, day=day,
                                   ts=o.captured_at, source=f"memory/{day}.md", session=o.session_id,
                                   message_ids=list(fact.source_message_ids), valid_from=valid,
                                   project=o.project or None, scope=fact.scope, roles=tuple(fact.source_roles),
                                   chat=chat))
    return found


def type_facts(facts: list[FactInput], llm: Completer, prompt: Prompt, model: str) -> tuple[list[Classified], LLMUsage]:
    kinds: list[Classified] = []
    usage = LLMUsage()
    for start in range(0, len(facts), BATCH):
        batch = facts[start:start + BATCH]
        marks = [f.observer_priority for f in batch]
        system, user = prompt.render(facts=facts_block([(f.text, f.observer_priority) for f in batch]))
        answer, used = llm.complete(task="ledger", model=model, system=system, prompt=user,
                                    validate=functools.partial(parse_typing, marks=marks))
        kinds += answer
        usage += used
    return kinds, usage


def embedding_similarity(embedder: Embedder) -> Similarity:
    """Cosine similarity with the embedder, each text embedded once per call of this function."""
    cache: dict[str, np.ndarray] = {}

    def vectors(texts: list[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in cache]
        if todo:
            for text, vector in zip(todo, embedder.encode(todo), strict=True):
                array = np.asarray(vector, dtype=np.float32)
                cache[text] = array / (np.linalg.norm(array) or 1.0)
        return np.stack([cache[t] for t in texts])

    def similarity(text: str, others: list[str]) -> list[float]:
        if not others:
            return []
        found = vectors([text, *others])
        return [float(max(0.0, s)) for s in found[1:] @ found[0]]

    return similarity


def record_day(workspace: Workspace, day: str, *, llm: Completer, prompt: Prompt, model: str,
               embedder: Embedder, now: datetime | None = None) -> LedgerDayResult:
    files = LedgerFiles(workspace)
    facts = fact_inputs(day, load_observations(workspace, day))
    result = LedgerDayResult(facts=len(facts))
    with files.locked():
        parsed = files.read()
        state = LedgerState.of(parsed.events)
        state.fact_ids |= files.archive_fact_ids()
        todo = [f for f in facts if not state.seen(f.fact_id, f.session, plain_text(f.text) or f.text.strip())]
        if todo:
            kinds, result.usage = type_facts(todo, llm, prompt, model)
            kinds = [by_provenance(kind, fact.roles, fact.chat) for kind, fact in zip(kinds, todo, strict=False)]
            numbers = next_numbers([e.id for e in parsed.events] + files.archive_ids())
            result.appended = derive_events(todo, kinds, state, embedding_similarity(embedder), numbers)
            files.append(result.appended)
        result.report = after_write(files, now)
    return result


def after_write(files: LedgerFiles, now: datetime | None = None) -> IntegrityReport:
    """Advance the open-loops index from the checkpoint, rewrite the superseded map and the entity
    snapshot; return the structural integrity checks (call under the ledger lock)."""
    stamp = (now or datetime.now(UTC)).isoformat()
    parsed = files.read()
    events = parsed.events
    previous = files.read_json("checkpoint.json")
    last = previous.get("last_processed_event_id") if isinstance(previous, dict) else None
    index, new = files.open_loops(), events_after(events, last)
    loops = rebuild_open_loops(events) if index is None or new is None else advance_open_loops(index, new)
    files.write_json("index/open-loops.json", loops)
    files.write_json("checkpoint.json", checkpoint(events, stamp))
    files.write_json("index/superseded.json", superseded_map(LedgerState.of(events)))
    files.write_json("entity-snapshot.json", entity_snapshot(events, stamp))
    written = files.read_json("checkpoint.json")
    return IntegrityReport(structural_checks(parsed, files.archive_ids(), loops,
                                             written if isinstance(written, dict) else None))


def superseded_map(state: LedgerState) -> dict[str, dict]:
    """Observation fact id -> the event that replaced its event (recall names the replacement and
    marks the messages the old fact cites and those restating its value: stages/recall/supersession)."""
    found = {}
    for old_id in state.superseded_by:
        old, newest = state.events.get(old_id), state.replacement(old_id)
        if old is None or old.fact_id is None or newest not in state.events:
            continue
        new = state.events[newest]
        # what recall needs to mark the old fact, the messages it cites and what restates it
        found[old.fact_id] = {"event": old.id, "by": newest, "text": new.content, "old": old.content,
                              "entity": old.entity, "project": old.project, "session": old.session,
                              "messages": old.message_ids, "at_ts": (new.valid_from or new.ts).timestamp(),
                              "by_fact": new.fact_id, "by_session": new.session, "by_messages": new.message_ids}
    return found


def add_event(workspace: Workspace, fields: dict, now: datetime | None = None) -> LedgerEvent:
    """Append one event written by hand (`memory-pipeline ledger add`): validated, its id the next
    of its day, its `supersedes`/`related` checked against the ledger. BadInputError otherwise."""
    files = LedgerFiles(workspace)
    ts = fields.pop("ts", None) or (now or datetime.now(UTC)).astimezone()
    if fields.get("entity"):
        fields["entity"] = snake_entity(fields["entity"]) or None
    with files.locked():
        parsed = files.read()
        known = {e.id for e in parsed.events} | set(files.archive_ids())
        for target in [fields.get("supersedes"), *fields.get("related", [])]:
            if target and target not in known:
                raise BadInputError(f"{target} is not an event in the ledger")
        day = ts.date().isoformat()
        number = next_numbers(sorted(known)).get(day.replace("-", ""), 1)
        status = fields.pop("status", None) or ("open" if fields.get("type") == "commitment" else None)
        try:
            event = LedgerEvent(ts=ts, id=event_id(day, number), source=fields.pop("source", None) or "manual",
                                status=status, **fields)
        except ValidationError as exc:
            first = exc.errors()[0]
            raise BadInputError(f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from exc
        files.append([event])
        after_write(files, now)
    return event
