"""One day's sessions and observations: the work behind the `sessions` and `observations` assets.

Flows compose pure stages with resources; assets and the CLI call them.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError, ServiceError
from memory_pipeline.faults import pause_point
from memory_pipeline.models import LLMUsage, Observation, SessionEvent, Transcript
from memory_pipeline.ports import Completer, ObserveStore
from memory_pipeline.prompts import Prompt
from memory_pipeline.resources.files.daily_log import DailyLog
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.files.observation_files import (
    load_observation,
    load_session,
    not_observed_path,
    observation_path,
    sessions_path,
)
from memory_pipeline.resources.files.project_tally import ProjectTally
from memory_pipeline.resources.projects import resolve_project
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.events import observe_skip_reason
from memory_pipeline.stages.observe.observer import format_segments_for_log, optimize_for_context
from memory_pipeline.stages.observe.session import observe_session
from memory_pipeline.stages.projects import scoped
from memory_pipeline.stages.redact import redact_transcript


@dataclass
class SessionRecord:
    event: SessionEvent
    transcript: Transcript | None
    error: str | None = None


@dataclass
class DayObservations:
    observations: list[Observation] = field(default_factory=list)
    observed: int = 0
    reused: int = 0
    in_flight: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    not_observed: dict[str, str] = field(default_factory=dict)  # dedupe key -> why (indexed only)
    migrated: int = 0  # reused observations filed under their project now
    unread: dict[str, int] = field(default_factory=dict)  # dedupe key -> characters the Observer did not read
    usage: LLMUsage = field(default_factory=LLMUsage)
    redis_error: str | None = None


def collect_sessions(workspace: Workspace, day: str) -> list[SessionRecord]:
    """Load, redact and store every accepted session of the day; bad transcripts are reported."""
    inbox = Inbox(workspace)
    records = []
    for event in inbox.accepted(day):
        try:
            transcript = redact_transcript(inbox.load_transcript(event))
        except BadInputError as exc:
            quarantined = inbox.failed(event, str(exc))  # bounded: quarantined after a few failures
            records.append(SessionRecord(event, None, str(exc) + (" (quarantined)" if quarantined else "")))
            continue
        workspace.write_text(sessions_path(workspace, day, event.data.dedupe_key), transcript.model_dump_json())
        records.append(SessionRecord(event, transcript))
    return records


def session_project(workspace: Workspace, day: str, event: SessionEvent, settings: Settings,
                    transcript: Transcript | None = None) -> str:
    """The project an event's session belongs to: the event's own (written since projects exist),
    else the project of the folder its transcript ran in (older events; read from the session)."""
    if event.data.project is not None:
        return event.data.project

    transcript = transcript or load_session(workspace, day, event)
    return resolve_project(transcript.cwd if transcript else None, settings)


def _wait_for(path: Path, version: str, seconds: float) -> Observation | None:
    """Another run holds the lock: give it a moment to finish, then take over (a crashed
    holder must not block the event for the lock's hour; the LLM cache makes a repeat cheap)."""
    deadline = time.monotonic() + seconds
    while True:
        observation = load_observation(path)
        if (observation and observation.code_version == version) or time.monotonic() >= deadline:
            return observation
        time.sleep(0.5)


def hot_entry(observation: Observation) -> dict:
    """The Redis hot-list entry, shaped as the seed describes."""
    lines = [f"* {f.emoji} ({f.time or '--:--'}) {f.text}" for f in observation.facts]
    return {
        "dedupeKey": observation.dedupe_key,
        "observationId": observation.id,
        "sessionId": observation.session_id,
        "project": observation.project,
        "trigger": observation.trigger,
        "priority": observation.priority,
        "observations": f"Date: {observation.date}\n\n" + "\n".join(lines),
        "context": optimize_for_context(observation),
        "currentTask": observation.current_task,
        "suggestedResponse": observation.suggested_response,
        "timestamp": observation.captured_at.isoformat(),
        "tokenCount": observation.token_count,
        "schemaVersion": observation.schema_version,
    }


def _log_time(observation: Observation) -> str:
    return observation.captured_at.strftime("%H:%M")


def observe_day(
    workspace: Workspace,
    day: str,
    *,
    llm: Completer,
    prompt: Prompt,
    model: str,
    redis_store: ObserveStore | None = None,
    redis_error: str | None = None,
    wait_seconds: float = 30.0,
    settings: Settings,
) -> DayObservations:
    """Observe every session of the day once per code version; write log, file and hot list.

    The daily log and the observation file are written before Redis is touched, so a Redis
    outage still leaves the durable fallback; the caller fails the run when `redis_error` is set.
    """
    result = DayObservations(redis_error=redis_error)
    log = DailyLog(workspace)
    version = prompt.code_version(model)
    indexed_only: list[str] = []  # the projects of the sessions indexed, not observed
    for event in Inbox(workspace).accepted(day):
        key = event.data.dedupe_key
        skip = observe_skip_reason(event)
        if skip is not None:
            workspace.write_text(not_observed_path(workspace, day, key), skip + "\n")
            result.not_observed[key] = skip
            indexed_only.append(event.data.project or "")
            continue
        path = observation_path(workspace, day, key)
        observation = load_observation(path)
        if observation is None or observation.code_version != version:
            if redis_store is not None and result.redis_error is None:
                try:
                    if not redis_store.claim_observe_lock(key, version):
                        result.in_flight.append(key)
                        observation = _wait_for(path, version, wait_seconds)
                except ServiceError as exc:
                    result.redis_error = str(exc)
        if observation is None or observation.code_version != version:
            transcript = load_session(workspace, day, event)
            if transcript is None:
                result.failed[key] = "session not collected (materialize `sessions` for this day first)"
                continue
            try:
                observation = observe_session(transcript, event, llm=llm, prompt=prompt, model=model)
            except Exception:
                if redis_store is not None and result.redis_error is None:
                    redis_store.release_observe_lock(key)
                raise
            observation = scoped(observation, session_project(workspace, day, event, settings, transcript))
            pause_point("observe:before-write")
            workspace.write_json(path, json.loads(observation.model_dump_json()))
            pause_point("observe:after-write")
            result.observed += 1
            result.usage = result.usage + observation.usage
            if observation.unread_chars:
                result.unread[key] = observation.unread_chars
        else:
            result.reused += 1
            filed = scoped(observation, session_project(workspace, day, event, settings))
            if filed != observation:  # written before projects existed: file it now (the migration)
                observation = filed
                workspace.write_json(path, json.loads(observation.model_dump_json()))
                result.migrated += 1
        log.upsert(day, format_segments_for_log(observation, time_label=_log_time(observation)),
                   kind="dedupeKey", key=key, version=observation.code_version)
        if redis_store is not None and result.redis_error is None:
            try:
                redis_store.push_observation(day, hot_entry(observation))
            except ServiceError as exc:
                result.redis_error = str(exc)
        result.observations.append(observation)
    ProjectTally(workspace).set_day(day, Counter([o.project or "" for o in result.observations] + indexed_only))
    return result
