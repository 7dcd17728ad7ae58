"""The points of one observation in the observation tier (its facts and segment narratives), each
dated by when it happened in its session; vectors are filled in when the day is indexed."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from datetime import time as dt_time

from memory_pipeline.models import Observation, StorePoint, stable_id


def fact_time(observation: Observation, hhmm: str | None) -> datetime:
    """When a fact happened: the observation's day at the fact's transcript time ("HH:MM", in the
    capture's zone), a day earlier if that would be after the capture; the capture time without one."""
    captured = observation.captured_at
    try:
        hour, minute = (int(part) for part in str(hhmm).split(":")[:2])
        when = datetime.combine(date.fromisoformat(observation.date), dt_time(hour, minute), captured.tzinfo)
    except (TypeError, ValueError):
        return captured
    return when - timedelta(days=1) if when > captured + timedelta(minutes=1) else when


def observation_points(observation: Observation) -> list[StorePoint]:
    """The points of one observation, without vectors (filled in by `index_points`)."""
    base = {
        "tier": "observations",
        "date": observation.date,
        "session_id": observation.session_id,
        "dedupe_key": observation.dedupe_key,
        "observation_id": observation.id,
        "trigger": observation.trigger,
        "created_at": observation.captured_at.isoformat(),
        "created_ts": observation.captured_at.timestamp(),
        "current_task": observation.current_task or "",
        "project": observation.project,
        "scope": "project",
    }
    points: list[StorePoint] = []
    for segment in observation.segments:
        for fact in segment.facts:
            when = fact_time(observation, fact.time)
            payload = base | {
                "created_at": when.isoformat(),
                "created_ts": when.timestamp(),
                "kind": "fact",
                "scope": fact.scope,
                "priority": fact.priority,
                "time": fact.time,
                "segment": segment.title,
                "source_message_ids": fact.source_message_ids,
                "source_roles": fact.source_roles,
            }
            points.append(StorePoint(id=fact.id, text=fact.text, payload=payload))
        if segment.narrative:
            sources = sorted({sid for f in segment.facts for sid in f.source_message_ids})
            priorities = {f.priority for f in segment.facts}
            top = next((p for p in ("high", "medium", "low") if p in priorities), "medium")
            payload = base | {
                "kind": "narrative",
                "priority": top,
                "time": None,
                "segment": segment.title,
                "source_message_ids": sources,
                "source_roles": list(dict.fromkeys(r for f in segment.facts for r in f.source_roles)),
            }
            text = f"{segment.title}: {segment.narrative}" if segment.title else segment.narrative
            points.append(StorePoint(id=stable_id(observation.dedupe_key, "narrative", text), text=text, payload=payload))
    return points
