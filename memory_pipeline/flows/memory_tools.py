"""The memory tools an agent calls mid-task (the MCP server's use cases, without the SDK).

`search` is `recall` (the same service, the same ranking) shown one line a hit; `get` reads the
hits' stored points from the recall service and quotes their cited messages from the stored,
redacted sessions; `timeline` shows a hit's or a session's neighbouring messages and
observations and the days around; `trace` and `brief` are the CLI's. Each answers within the
reader's project scope: an id of another project answers as an unknown one. Read-only: nothing here
writes memory (a search counts its hits for the feedback stage, as `recall` does).
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError, ServiceError
from memory_pipeline.flows.brief import build_brief
from memory_pipeline.flows.brief import in_scope as observation_in_scope
from memory_pipeline.flows.recall.client import recall, stored_points
from memory_pipeline.flows.trace import event_link, trace_target
from memory_pipeline.models import Message, Observation, SessionEvent
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.files.observation_files import load_observations, load_session
from memory_pipeline.resources.redis.proposals import ProposalStore
from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.memory_tools import (
    FullHit,
    Quoted,
    nearest_facts,
    render_full_hits,
    render_search,
    render_timeline,
    render_trace_answer,
)
from memory_pipeline.stages.projects import ProjectScope
from memory_pipeline.stages.provenance import label_of
from memory_pipeline.stages.recall.confidence import SHOWN_WHEN_NOTHING, SHOWN_WHEN_WEAK, confidence
from memory_pipeline.stages.recall.sources import point_sources
from memory_pipeline.stages.trace import UUID, render_trace
from memory_pipeline.stages.untrusted import visible

MAX_IDS = 20
QUOTED_SOURCES = 5  # sources of a merged memory whose messages `get` quotes
MAX_AROUND = 50
MAX_DAYS = 7
DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def search_memory(workspace: Workspace, settings: Settings, scope: ProjectScope, query: str, *, limit: int = 10,
                  since: str | None = None, tier: str = "all") -> str:
    hits = recall(workspace, query, settings=settings, limit=limit, tier=tier, since=since, project=scope.project)
    found = confidence(hits)
    if hits and not found.answered:  # a short answer: the few nearest, said not to be answers
        nearest = hits[:SHOWN_WHEN_NOTHING]
        return render_search(query, nearest, f"{scope.describe()}; {found.line(len(nearest))}")
    if hits and found.level == "weak":  # short too: the first few, said to be weak
        return render_search(query, hits[:SHOWN_WHEN_WEAK], f"{scope.describe()}; {found.weak_line()}")
    return render_search(query, hits, scope.describe())


def check_ids(ids: list[str]) -> list[str]:
    cleaned = list(dict.fromkeys(str(i).strip().lower() for i in ids))
    if not cleaned or len(cleaned) > MAX_IDS:
        raise BadInputError(f"give 1 to {MAX_IDS} hit ids (from search)")
    bad = [i for i in cleaned if not UUID.match(i)]
    if bad:
        raise BadInputError(f"not a hit id (a UUID from search): {', '.join(ascii(i) for i in bad[:3])}")
    return cleaned


def get_memories(workspace: Workspace, settings: Settings, scope: ProjectScope, ids: list[str]) -> str:
    wanted = check_ids(ids)
    points = {p["id"]: p for p in stored_points(workspace, settings=settings, ids=wanted)}
    visible = [i for i in wanted if i in points and in_scope(scope, points[i])]
    unknown = [i for i in wanted if i not in visible]  # another project's id answers as an unknown one
    hits = [full_hit(workspace, points[i]) for i in visible]
    return render_full_hits(hits, unknown, scope.describe())


def in_scope(scope: ProjectScope, point: dict) -> bool:
    return scope.admits(str(point.get("project") or ""), point.get("scope"))


def session_events(workspace: Workspace, day: str, session_id: str, dedupe_key: str | None = None) -> list[SessionEvent]:
    return [e for e in Inbox(workspace).accepted(day)
            if (e.data.dedupe_key == dedupe_key if dedupe_key else e.data.session_id == session_id)]


def session_messages(workspace: Workspace, events: list[SessionEvent]) -> list[Message]:
    """The user and assistant turns with words of the events' stored sessions, each once, in order."""
    seen: dict[str, Message] = {}
    for event in events:
        transcript = load_session(workspace, event.day, event)
        for message in transcript.messages if transcript else []:
            if message.role in ("user", "assistant") and message.text.strip() and not message.is_compaction_summary:
                seen.setdefault(message.id, message)
    return list(seen.values())


def quoted(message: Message, anchors: set[str]) -> Quoted:
    return Quoted(message.id, label_of(message, {}), message.timestamp.isoformat() if message.timestamp else None,
                  message.text, message.id in anchors)


def full_hit(workspace: Workspace, point: dict) -> FullHit:
    """The hit with each of its sources (every session a merged memory was seen in, at most
    QUOTED_SOURCES of them quoted): the session's events and the cited messages."""
    hit = FullHit(id=point["id"], point=point, sources=point_sources(point["id"], point))
    own = (str(point.get("date", "")), str(point.get("session_id", "")))
    for source in hit.sources[:QUOTED_SOURCES]:
        day, session = source.date, source.session_id
        key = point.get("dedupe_key") if (day, session) == own else None
        events = session_events(workspace, day, session, key) if DAY.match(day) else []
        messages = {m.id: m for m in session_messages(workspace, events)}
        hit.events += [event_link(workspace, e) for e in events]
        hit.messages += [quoted(messages[m], set(source.message_ids)) for m in source.message_ids if m in messages]
        if not events:
            hit.missing.append(f"the session event of {session} under events/{day}/")
        hit.missing += [f"message {m} in the stored session" for m in source.message_ids if events and m not in messages]
    return hit


def timeline_of(workspace: Workspace, settings: Settings, scope: ProjectScope, target: str, *, around: int = 5,
                days: int = 1) -> str:
    """Around a hit id, a session id or a day (YYYY-MM-DD)."""
    target = str(target or "").strip()
    if not target:
        raise BadInputError("give a hit id, a session id or a day (YYYY-MM-DD)")
    if not 0 <= around <= MAX_AROUND or not 0 <= days <= MAX_DAYS:
        raise BadInputError(f"around must be 0..{MAX_AROUND} and days 0..{MAX_DAYS}")
    if DAY.match(target):
        check_day(target)
        return render_timeline(f"memory timeline of {target} and {days} day(s) either side, in {scope.describe()}:",
                               [], [], days_around(workspace, scope, target, days), day_facts=True)
    if UUID.match(target.lower()):
        found: list[dict | None] = [*stored_points(workspace, settings=settings, ids=[target.lower()])] or [None]
        [point] = found
        if point is None or not scope.admits(str(point.get("project") or "")):  # its session, not only the fact
            raise BadInputError(f"no hit {target} in a session of {scope.describe()} (all_projects=true widens)")
        session, day = str(point.get("session_id", "")), str(point.get("date", ""))
        anchors = {str(m) for m in point.get("source_message_ids") or []}
        heading = f"memory timeline around hit {target} (session {session}, {day}):"
        return session_timeline(workspace, scope, heading, session, [day], anchors, around, days)
    points = [p for p in stored_points(workspace, settings=settings, session_id=target) if scope.admits(str(p.get("project") or ""))]
    session_days = sorted({str(p.get("date")) for p in points if DAY.match(str(p.get("date", "")))})
    if not session_days:
        raise BadInputError(f"no session {target!r} in the index of {scope.describe()}")
    heading = f"memory timeline of session {target} ({', '.join(session_days)}), its last messages:"
    return session_timeline(workspace, scope, heading, target, session_days, set(), around * 2, days)


def check_day(day: str) -> None:
    try:
        date.fromisoformat(day)
    except ValueError as exc:
        raise BadInputError(f"{day!r} is not a day (YYYY-MM-DD)") from exc


def session_timeline(workspace: Workspace, scope: ProjectScope, heading: str, session: str, session_days: list[str],
                     anchors: set[str], around: int, days: int) -> str:
    events = [e for d in session_days for e in session_events(workspace, d, session)]
    messages = session_messages(workspace, events)
    window = neighbours(messages, anchors, around)
    anchor = next((m.timestamp for m in window if m.id in anchors and m.timestamp), None)
    observations = [observation_view(o) for d in session_days for o in load_observations(workspace, d)
                    if o.session_id == session]
    for view in observations:  # the facts observed nearest the hit (or the last ones), not a whole day's
        view["facts"] = nearest_facts(view["facts"], anchor.strftime("%H:%M") if anchor else None,
                                      max(5, 2 * around + 1))
    note = "" if events else f"The stored session of {session} was not found (its events are gone)."
    return render_timeline(heading, [quoted(m, anchors) for m in window], observations,
                           days_around(workspace, scope, session_days[-1], days), note=note)


def neighbours(messages: list[Message], anchors: set[str], around: int) -> list[Message]:
    """The anchors with `around` messages either side; without anchors the last `around` messages."""
    positions = [n for n, m in enumerate(messages) if m.id in anchors]
    if not positions:
        return messages[-around:] if around else []
    return messages[max(0, positions[0] - around): positions[-1] + around + 1]


def observation_view(observation: Observation) -> dict:
    return {"date": observation.date, "session": observation.session_name or observation.session_id,
            "project": observation.project, "current_task": observation.current_task or "",
            "fact_count": len(observation.facts),
            "facts": [{"id": f.id, "priority": f.priority, "time": f.time, "text": f.text,
                       "source_roles": f.source_roles} for f in observation.facts]}


def days_around(workspace: Workspace, scope: ProjectScope, day: str, days: int) -> dict[str, list[dict]]:
    """Each day from `days` before to `days` after: its observations in scope."""
    start = date.fromisoformat(day)
    found = {}
    for offset in range(-days, days + 1):
        current = (start + timedelta(days=offset)).isoformat()
        seen = (observation_in_scope(o, scope) for o in load_observations(workspace, current))
        found[current] = [observation_view(o) for o in seen if o is not None]
    return found


def trace_memory(workspace: Workspace, settings: Settings, scope: ProjectScope, target: str) -> str:
    if not str(target or "").strip():
        raise BadInputError("give a MEMORY.md line number or text, a proposal id, or a hit id")
    try:
        client = connect_redis(settings.redis_url, workspace.state, settings.redis_idle_timeout, settings.runtime_dir)
        store = ProposalStore(RedisStore(client))
    except ServiceError:
        store = None  # the files still tell most of the story
    trace = trace_target(workspace, store, str(target).strip(), settings, scope)
    chain = render_trace(trace)
    line = trace.line["text"].strip() if trace.line else None
    return render_trace_answer(target, line, chain[1:] if line else chain)


def brief_memory(workspace: Workspace, scope: ProjectScope) -> str:
    """The session briefing of `scope`, its scope line saying what it covers (and, for a project with
    no memories, which others have some and how to look), as the SessionStart hook's does."""
    return visible(build_brief(workspace, project=scope.project, scope=scope.describe()).text)
