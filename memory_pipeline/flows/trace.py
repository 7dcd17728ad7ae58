"""`trace`: follow one record back to the transcript messages it came from.

A MEMORY.md line carries its proposal id; the proposal (Redis, or for one whose 30-day record
has gone, the daily log and its reflection file) names its observations and facts; an
observation names its event, whose stored session holds the cited messages. Works for lines
promoted before proposals recorded `staged`/`decided_by` and before observations recorded their
prompt sha and model (inferred from the code version where the current prompt matches).

A reader in one project (the MCP server's `trace`) passes its `ProjectScope`: it reads that
project's MEMORY.md sections, and the chain keeps only what `search`, `get` and `timeline` would
show it (`within_scope`): another project's observation, fact or hit id answers exactly like an
unknown id, and a proposal's chain keeps another project's user-level facts without their messages.
"""

from __future__ import annotations

from typing import Any

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError, MemoryPipelineError, ServiceError
from memory_pipeline.flows.recall.client import stored_points
from memory_pipeline.flows.reflect import REFLECT_WINDOW_DAYS, load_reflection, window
from memory_pipeline.models import Observation, SessionEvent, stable_id
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.files.memory_files import MemoryFiles
from memory_pipeline.resources.files.observation_files import load_observations, load_session
from memory_pipeline.resources.redis.proposals import ProposalStore
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.index.message_docs import message_documents
from memory_pipeline.stages.projects import ALL_PROJECTS, USER, ProjectScope
from memory_pipeline.stages.provenance import labels_of
from memory_pipeline.stages.recall.sources import point_sources, seen_in
from memory_pipeline.stages.redact import redact
from memory_pipeline.stages.review.memory_md import bullet_texts, for_project
from memory_pipeline.stages.trace import Trace, find_lines, match_draft, memory_lines, proposal_day, quote, target_kind


def unknown_record(rid: str) -> BadInputError:
    return BadInputError(f"{rid} is no observation, fact or recall hit id in this workspace")


def trace_target(workspace: Workspace, store: ProposalStore | None, target: str, settings: Settings,
                 scope: ProjectScope = ALL_PROJECTS) -> Trace:
    """The chain behind `target`: a MEMORY.md line (number or text), a proposal id, or an
    observation, fact or recall hit id; what `scope` may see of it."""
    trace, kind = Trace(target=target), target_kind(target)
    if kind == "record_id":
        rid = target.lower()
        return within_scope(trace_record(workspace, store, trace, rid, settings), scope, rid)
    return within_scope(trace_line(workspace, store, trace, kind, target, settings, scope), scope, None)


def trace_line(workspace: Workspace, store: ProposalStore | None, trace: Trace, kind: str, target: str,
               settings: Settings, scope: ProjectScope) -> Trace:
    """A MEMORY.md line (number or text, of the sections `scope` reads) or a proposal id."""
    memory = for_project(MemoryFiles(workspace).read_memory(), scope.project)
    pid: str | None
    if kind == "proposal":
        pid = target
        trace.line = next((vars(line) for line in memory_lines(memory) if line.proposal_id == pid), None)
        if trace.line is None:
            trace.notes.append(f"MEMORY.md has no line for {pid} (not promoted, or the line was removed)")
    else:
        lines = memory_lines(memory)
        if kind == "line_number":
            number = int(target)
            if not 1 <= number <= len(lines):
                raise BadInputError(f"MEMORY.md has {len(lines)} lines; there is no line {number}")
            found = [lines[number - 1]]
        else:
            found = find_lines(memory, target)
            if not found:
                raise BadInputError(f"no MEMORY.md line contains {target!r}")
        trace.line = vars(found[0])
        if len(found) > 1:
            trace.notes.append("other matching lines: " + ", ".join(str(line.number) for line in found[1:]))
        pid = found[0].proposal_id
        if pid is None:
            trace.missing.append(f"line {found[0].number} carries no proposal id: it was written by hand "
                                 "(or before promotion marked lines), not promoted by the pipeline")
            return trace
    return trace_proposal(workspace, store, trace, pid, settings, scope)


def review_history(workspace: Workspace, pid: str) -> list[str]:
    """Every daily-log line naming the proposal (staged, approved, edited, rejected, expired), by day."""
    folder = workspace.memory_dir
    found = []
    for path in sorted(folder.glob("????-??-??.md")) if folder.is_dir() else []:
        for line in path.read_text(encoding="utf-8").splitlines():
            if f"`{pid}`" in line:
                found.append(f"{path.stem}: {line.lstrip('- ').strip()}")
    return found


def _stored(store: ProposalStore | None, pid: str, trace: Trace):
    if store is None:
        return None
    try:
        return store.get(pid)
    except ServiceError as exc:
        trace.missing.append(f"Redis unreachable ({exc}); the proposal was read from the files")
        return None


def trace_proposal(workspace: Workspace, store: ProposalStore | None, trace: Trace, pid: str,
                   settings: Settings, scope: ProjectScope = ALL_PROJECTS) -> Trace:
    history, stored = review_history(workspace, pid), _stored(store, pid, trace)
    if stored is not None and not scope.admits(stored.project):  # another project's: as if there were none
        history, stored = [], None
    day = stored.created if stored else proposal_day(pid)
    line_text = next(iter(bullet_texts(trace.line["text"])), "") if trace.line else ""
    if stored:
        trace.proposal = stored.model_dump() | {"found_in": "Redis"}
    else:
        status = next((kind for kind in ("approved", "rejected", "expired") if any(f" {kind} `" in h for h in history)),
                      None)
        trace.proposal = {"id": pid, "status": status, "created": day, "text": line_text,
                          "found_in": "the daily log and reflection file (its Redis record has expired)"}
        trace.missing.append(f"{pid}'s Redis record (kept 30 days); who approved it is read from the daily log")
    trace.proposal["history"] = history
    texts = [trace.proposal.get("text", ""), trace.proposal.get("original_text", ""), line_text]
    texts += [h.split("(was: ", 1)[1].split("):", 1)[0] for h in history if "(was: " in h]
    reflection = load_reflection(workspace, day)
    draft, how = match_draft(reflection.proposals, texts) if reflection else (None, "")
    if reflection is None:
        trace.missing.append(f"reflections/{day}.json (the reflection {pid} came from)")
    else:
        trace.reflection = {"day": day, "path": workspace.relative(workspace.reflection_path(day)),
                            "matched": how or "not matched", "code_version": reflection.code_version,
                            "observations": len(reflection.observation_ids), "summary": reflection.summary}
        if draft is None:
            trace.missing.append(f"the draft of {pid} in reflections/{day}.json (re-reflected since?)")
    source = stored or draft
    if source is None:
        trace.missing.append(f"the observations {pid} cites")
        return trace
    observations = {o.id: o for d in window(day, REFLECT_WINDOW_DAYS) for o in load_observations(workspace, d)}
    for oid in source.source_observation_ids:
        if oid not in observations:
            trace.missing.append(f"observation {oid} (in the 7 days ending {day})")
            continue
        trace.observations.append(observation_link(workspace, observations[oid], set(source.source_fact_ids),
                                                   trace, settings))
    return trace


def observer_lineage(observation: Observation, settings: Settings) -> tuple[str, str]:
    """(prompt sha, model) as recorded, or inferred when the current prompt gives its code version."""
    if observation.prompt_sha:
        return observation.prompt_sha, observation.model
    offline = settings.replace(llm_provider="offline")
    for prompt, model in ((pipeline.stage_prompt("observer", settings), pipeline.model_for(settings, "observe")),
                          (pipeline.stage_prompt("observer", offline), pipeline.OFFLINE_MODEL),
                          (load_prompt("observer", settings.prompts_dir), settings.observer_model)):
        if prompt.code_version(model) == observation.code_version:
            return f"{prompt.sha256[:12]} (inferred: the current prompt)", model
    return "", ""


def _event(workspace: Workspace, day: str, dedupe_key: str) -> SessionEvent | None:
    return next((e for e in Inbox(workspace).accepted(day) if e.data.dedupe_key == dedupe_key), None)


def observation_link(workspace: Workspace, observation: Observation, fact_ids: set[str], trace: Trace,
                     settings: Settings) -> dict:
    facts = [f for f in observation.facts if not fact_ids or f.id in fact_ids]
    prompt_sha, model = observer_lineage(observation, settings)
    if not prompt_sha:
        trace.missing.append(f"the Observer prompt of observation {observation.id[:8]} (code version "
                             f"{observation.code_version}; observed before prompts were recorded, by a prompt since edited)")
    link: dict[str, Any] = {"id": observation.id, "date": observation.date, "session_id": observation.session_id,
            "project": observation.project, "trigger": observation.trigger, "code_version": observation.code_version,
            "prompt_sha": prompt_sha, "model": model, "facts": [f.model_dump() for f in facts], "event": None,
            "messages": []}
    event = _event(workspace, observation.date, observation.dedupe_key)
    if event is None:
        trace.missing.append(f"the event {observation.dedupe_key} under events/{observation.date}/")
        return link
    cited = [mid for f in facts for mid in f.source_message_ids]
    link.update(event=event_link(workspace, event), messages=cited_messages(workspace, event, cited, trace))
    return link


def event_link(workspace: Workspace, event: SessionEvent) -> dict:
    data = event.data
    ref = data.transcript
    where = ref.path if ref else f"inline in events/{event.day}/{data.dedupe_key}.json"
    return {"dedupe_key": data.dedupe_key, "session_id": data.session_id, "trigger": data.trigger,
            "captured_at": data.captured_at.isoformat(), "message_count": data.message_count,
            "transcript": where, "format": ref.format if ref else "text"}


def cited_messages(workspace: Workspace, event: SessionEvent, ids: list[str], trace: Trace) -> list[dict]:
    """The cited messages, quoted from the stored (redacted) session, redacted once more."""
    transcript = load_session(workspace, event.day, event)
    if transcript is None:
        trace.missing.append(f"the stored session sessions/{event.day}/{event.data.dedupe_key}.json")
        return []
    by_id = {m.id: m for m in transcript.messages}
    labels = labels_of(transcript.messages)
    found = []
    for mid in dict.fromkeys(ids):
        message = by_id.get(mid)
        if message is None:
            trace.missing.append(f"message {mid} in the session of {event.data.session_id}")
            continue
        found.append({"id": mid, "role": message.role, "said_by": labels[mid], "quote": quote(redact(message.text)),
                      "timestamp": message.timestamp.isoformat() if message.timestamp else None})
    return found


def trace_record(workspace: Workspace, store: ProposalStore | None, trace: Trace, rid: str,
                 settings: Settings) -> Trace:
    """An observation, fact or recall hit id (observation narrative or raw message point)."""
    root = workspace.observations_root
    for day in sorted((p.name for p in root.iterdir() if p.is_dir()), reverse=True) if root.is_dir() else []:
        for o in load_observations(workspace, day):
            narratives = {stable_id(o.dedupe_key, "narrative", f"{s.title}: {s.narrative}" if s.title else s.narrative):
                          {f.id for f in s.facts} for s in o.segments if s.narrative}
            fact_ids = ({rid} if rid in {f.id for f in o.facts} else narratives.get(rid, set()))
            if rid == o.id or fact_ids:
                trace.observations.append(observation_link(workspace, o, fact_ids, trace, settings))
                trace.cited_by = citing(store, o.id, fact_ids)
                if rid in {f.id for f in o.facts}:
                    trace_other_sources(workspace, trace, rid, settings)
                return trace
    return trace_message_hit(workspace, trace, rid, settings)


def trace_other_sources(workspace: Workspace, trace: Trace, fact_id: str, settings: Settings) -> None:
    """A memory maintenance merged from several sessions: each other source's observation, fact and
    cited messages (the sources are read from the recall index, where the merged memory lives)."""
    try:
        points = stored_points(workspace, settings=settings, ids=[fact_id])
    except MemoryPipelineError as exc:
        trace.missing.append(f"the other sources of {fact_id} (the recall index did not answer: {exc})")
        return
    sources = point_sources(fact_id, points[0]) if points else []
    others = [s for s in sources if s.fact_id and s.fact_id != fact_id]
    if not others:
        return
    seen = seen_in(sources, points[0].get("mentions")) or "merged from facts of one session"
    trace.notes.append(f"a merged memory, {seen}: each of its {len(sources)} sources is traced above")
    for source in others:
        found = next((o for o in load_observations(workspace, source.date) if o.id == source.observation_id), None)
        if found is None:
            trace.missing.append(f"observation {source.observation_id} of {source.date} (a source of {fact_id})")
            continue
        trace.observations.append(observation_link(workspace, found, {source.fact_id}, trace, settings))


def citing(store: ProposalStore | None, observation_id: str, fact_ids: set[str]) -> list[dict]:
    if store is None:
        return []
    return [{"id": p.id, "status": p.status, "text": p.text} for p in sorted(store.all().values(), key=lambda p: p.id)
            if observation_id in p.source_observation_ids or fact_ids & set(p.source_fact_ids)]


def stored_place(workspace: Workspace, rid: str, settings: Settings) -> tuple[str, str, str | None] | None:
    """The day, session and project of the indexed point `rid`, from the recall index; None when it has no
    such point or does not answer."""
    try:
        points = stored_points(workspace, settings=settings, ids=[rid])
    except MemoryPipelineError:
        return None
    if not points or not points[0].get("date") or not points[0].get("session_id"):
        return None
    return str(points[0]["date"]), str(points[0]["session_id"]), points[0].get("project")


def trace_message_hit(workspace: Workspace, trace: Trace, rid: str, settings: Settings) -> Trace:
    """A raw message point: its session, found from the point's day and session in the recall index, else by
    reading every session newest first (a year's history: 11 s for a hit six months old)."""
    inbox = Inbox(workspace)
    place = stored_place(workspace, rid, settings)
    days = inbox.accepted_days()
    searched: list[tuple[str, str | None]] = [(place[0], place[1])] if place and place[0] in days else []
    searched += [(day, None) for day in reversed(days)]
    for day, session_id in searched:
        for event in inbox.accepted(day):
            if session_id is not None and event.data.session_id != session_id:
                continue
            transcript = load_session(workspace, day, event)
            docs = message_documents(transcript, day=day, session_id=event.data.session_id) if transcript else []
            doc = next((d for d in docs if d.id == rid), None)
            if doc is not None:
                trace.notes.append("a raw message hit (the messages tier): no observation or proposal behind it")
                trace.observations.append({
                    "id": "none", "date": day, "session_id": event.data.session_id,
                    "project": place[2] if place and place[2] else event.data.project,
                    "trigger": event.data.trigger,
                    "code_version": "n/a", "prompt_sha": "n/a", "model": "n/a", "facts": [],
                    "event": event_link(workspace, event),
                    "messages": cited_messages(workspace, event, doc.payload["source_message_ids"], trace)})
                return trace
    raise unknown_record(rid)


def within_scope(trace: Trace, scope: ProjectScope, rid: str | None) -> Trace:
    """What `scope` may see of the chain, as `search`, `get` and `timeline` show it: an observation of
    its project (or of none known) whole; of another project only its user-level facts, without the
    event or the quoted messages. For a record id (`rid`): when the record itself is not visible,
    the answer an unknown id gets."""
    if scope.everything:
        return trace
    kept: list[dict] = []
    for link in trace.observations:
        if scope.admits(link.get("project")):
            kept.append(link)
            continue
        facts = [f for f in link.get("facts") or [] if f.get("scope") == USER]
        if facts and (rid is None or rid in {f.get("id") for f in facts}):
            kept.append(link | {"facts": facts, "event": None, "messages": [], "session_id": "(another project)"})
    if rid is not None and not kept:
        raise unknown_record(rid)
    hidden = len(trace.observations) - len(kept)
    trace.observations = kept
    if hidden:
        trace.notes.append(f"{hidden} observation{'s' if hidden != 1 else ''} of other projects not shown "
                           f"({scope.describe()})")
    if any(link.get("session_id") == "(another project)" for link in kept):
        trace.notes.append("user-level facts of another project are shown without their session and messages")
    return trace
