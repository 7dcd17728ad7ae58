"""What `memory-pipeline service status` reports, as one use case: the services (looked at, never
started), the counts of the workspace's events and observations, the days still to ingest, the
hooks' decisions and the workspace's processes."""

from __future__ import annotations

import json
from pathlib import Path

from memory_pipeline import pipeline
from memory_pipeline.config import Settings, provider_chosen_by
from memory_pipeline.errors import MemoryPipelineError
from memory_pipeline.flows.intake.inbox import pending_days
from memory_pipeline.flows.runs import dagster_home, get_instance
from memory_pipeline.pipeline import model_for, timezone_name
from memory_pipeline.resources import partitions as partition_days
from memory_pipeline.resources.daemons import dagster_records
from memory_pipeline.resources.daemons.user_service import registered
from memory_pipeline.resources.files.hook_state import read_decisions
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.files.observation_files import load_observations
from memory_pipeline.resources.vectors.stores import workspace_store
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.events import observe_skip_reason


def workspace_status(workspace: Workspace, settings: Settings) -> dict:
    """The whole report, as `service status --json` prints it."""
    from memory_pipeline.resources.daemons.services import workspace_processes

    pipeline = pipeline_status(workspace, settings)
    report = {"workspace": str(workspace.root), "services": service_status(workspace, settings),
              **counts(workspace, settings), "pipeline": pipeline}
    report["hooks_7d"] = hook_decisions(workspace)
    report["processes"] = [p.as_dict() for p in workspace_processes(workspace, settings.runtime_dir)]
    return report


def service_status(workspace, settings: Settings) -> dict:
    from memory_pipeline.resources.redis.embedded_redis import EmbeddedRedis
    from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis

    services: dict[str, dict] = {}
    try:
        if settings.redis_url:
            RedisStore(connect_redis(settings.redis_url, workspace.state, settings.redis_idle_timeout,
                                     settings.runtime_dir)).ping()
            services["redis"] = {"ok": True, "where": settings.redis_url}
        else:  # looking must not start it: an idle embedded server stops, the next command starts it
            server = EmbeddedRedis(workspace.state, settings.runtime_dir)
            running = server.running_pid() is not None
            services["redis"] = {"ok": True, "where": str(server.socket_path), "running": running}
            if not running:
                services["redis"]["note"] = "not running; the next command that needs it starts it"
    except MemoryPipelineError as exc:
        services["redis"] = {"ok": False, "error": str(exc)}
    if settings.qdrant_url:

        try:
            store = workspace_store(workspace.state, settings.qdrant_url, dimension=0,
                                    api_key=settings.qdrant_api_key)
            services["qdrant"] = {"ok": True, "where": store.where(), "stores": len(store.shards()),
                                  "points": store.count()}
        except MemoryPipelineError as exc:
            services["qdrant"] = {"ok": False, "error": str(exc)}
    else:
        services["qdrant"] = local_store_status(workspace)
    services["embedder"] = {"model": settings.embedding_model}
    services["llm"] = llm_status(workspace, settings)
    return services


def llm_status(workspace, settings: Settings) -> dict:
    """The provider, the model that observes, who chose it, and for a model provider today's token
    spend against its budget."""
    from memory_pipeline.resources.llm.budget import TokenBudget

    found = {"provider": settings.llm_provider, "observer_model": model_for(settings, "observe"),
             "chosen_by": provider_chosen_by(workspace.root)}
    if settings.llm_provider == "offline":
        return found | {"spent_tokens": 0}
    budget = TokenBudget(workspace.state_path("llm_budget"), settings.llm_daily_tokens)
    return found | budget.status(settings.llm_provider)


def local_store_status(workspace) -> dict:
    """The embedded shard without opening it (an open waits while an ingest holds it): whether it
    exists, and the points the index manifests (state/index/<tier>/<day>.json, written by every
    index run) record."""
    root = workspace.state_path("vectors")
    stores = [root] if root.is_dir() else []
    points = 0
    for manifest in sorted(workspace.state_path("index").glob("*/*.json")):
        try:
            points += len(json.loads(manifest.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            continue
    return {"ok": True, "where": str(root), "stores": len(stores), "points": points, "counted_from": "index manifests"}


def counts(workspace: Workspace, settings: Settings) -> dict:
    inbox = Inbox(workspace)
    days = inbox.accepted_days()
    events = [e for d in days for e in inbox.accepted(d)]
    observations = [o for d in days for o in load_observations(workspace, d)]
    return {
        "partitions_start": partition_days.partitions_start(settings),
        "inbox_pending": len(inbox.pending()),
        "quarantined": len(inbox.quarantined()),
        "events": len(events),
        "indexed_not_observed": sum(1 for e in events if observe_skip_reason(e) is not None),
        "days": len(days),
        "observations": len(observations),
        "facts": sum(len(o.facts) for o in observations),
        "projects": project_counts(observations),
        "pending_days": pending_days(workspace, pipeline.code_version("observe", settings),
                                     open_instance=lambda: get_instance(workspace, settings),
                                     settings=settings),
    }


def project_counts(observations) -> dict[str, int]:
    """Observations per project, most first ("" is a session of no known project)."""
    from collections import Counter

    return dict(Counter(o.project for o in observations).most_common())


def hook_decisions(workspace, days: int = 7, now=None) -> dict[str, int]:
    """Hook decisions (warm, hot, checkpoint, inject, inject_skipped, emitted, skipped, …) over the last days."""
    from collections import Counter
    from datetime import datetime, timedelta


    cutoff = (now or datetime.now().astimezone()) - timedelta(days=days)
    found: Counter[str] = Counter()
    for record in read_decisions(workspace):
        try:
            at = datetime.fromisoformat(str(record.get("at")))
        except ValueError:
            continue
        if at.tzinfo is not None and at >= cutoff:
            found[record["decision"]] += 1
    return dict(sorted(found.items()))


def memory_footer(workspace: Workspace, settings: Settings) -> str:
    """The briefing's last line: the model that observes, today's token spend, and whether memory is
    behind (the daemon down with events waiting). Cheap: files and a pid, no Dagster."""
    from memory_pipeline.resources.daemons.dagster_daemon import daemon_pid

    llm = llm_status(workspace, settings)
    line = f"_Memory observed by {llm['observer_model']} ({llm['provider']}), {llm['spent_tokens']} tokens today"
    waiting = len(Inbox(workspace).pending())
    if waiting and daemon_pid(workspace) is None:
        plural = "s" if waiting != 1 else ""
        return line + (f"; memory is behind: the daemon is down, {waiting} event{plural} waiting "
                       "(`memory-pipeline service start`)._")
    return line + "._"


def pipeline_status(workspace: Workspace, settings: Settings, now: float | None = None) -> dict:
    """What runs the sensors and schedules, the last sensor tick, each schedule's last and next run,
    and the inbox backlog, from the Dagster instance's records (its daemon heartbeats and ticks),
    read from its SQLite files without importing dagster (a PostgreSQL instance is opened)."""
    import time


    now = time.time() if now is None else now
    home = dagster_home(workspace, settings)
    if dagster_records.sqlite_instance(home):
        records, newest = dagster_records.instigators(home), dagster_records.newest_heartbeat(home)
    else:
        records, newest = instance_records(workspace, settings)
    found = {"runs_by": runs_by(workspace, newest, now), "inbox_backlog": len(Inbox(workspace).pending())}
    sensors, schedules = [], []
    for record in records:
        tick = record["last_tick"]
        last = ({"at": _iso(tick["timestamp"]), "status": tick["status"], "runs": tick["runs"]}
                if tick and tick.get("timestamp") else None)
        if record["kind"] == "sensor":
            sensors.append({"name": record["name"], "last_tick": last})
        else:
            cron = record["cron"]
            schedules.append({"name": record["name"], "cron": cron, "last_run": last,
                              "next_run": next_run(cron, settings, now) if cron else None})
    ticked = [s for s in sensors if s["last_tick"]]
    found["last_sensor_tick"] = max(ticked, key=lambda s: s["last_tick"]["at"]) if ticked else None
    found["schedules"] = sorted(schedules, key=lambda s: s["name"])
    if not schedules:
        found["note"] = "no schedule evaluated yet: the daemon has never run for this workspace"
    return found


def instance_records(workspace: Workspace, settings: Settings) -> tuple[list[dict], float | None]:
    """The same records through the Dagster instance (an instance on PostgreSQL)."""
    instance = get_instance(workspace, settings)
    records = []
    for state in instance.all_instigator_state():
        ticks = instance.get_ticks(state.instigator_origin_id, state.selector_id, limit=1)
        tick = ({"timestamp": ticks[0].timestamp, "status": ticks[0].status.value.lower(), "runs": len(ticks[0].run_ids)}
                if ticks else None)
        records.append({"name": state.name, "kind": state.instigator_type.value.lower(),
                        "cron": getattr(state.instigator_data, "cron_schedule", None), "last_tick": tick})
    beats = instance.get_daemon_heartbeats()
    return records, max((b.timestamp for b in beats.values()), default=None)


def runs_by(workspace: Workspace, newest: float | None, now: float) -> dict:
    """The process that runs the sensors and schedules: this workspace's daemon, another one whose
    heartbeats reach this instance, or nothing."""
    from memory_pipeline.resources.daemons.dagster_daemon import daemon_pid, stopped_by_user
    from memory_pipeline.resources.processes import children_of

    heartbeat = None if newest is None else round(now - newest, 1)
    pid, unit = daemon_pid(workspace), registered(workspace, Path.home())
    if pid is not None:
        awake = bool(children_of(pid))  # the watcher runs the code server and dagster-daemon while there is work
        return {"running": True, "what": "dagster-daemon" if awake else "the daemon's watcher (Dagster asleep: an "
                "event, a REVIEW.md edit or a schedule's time wakes it)", "pid": pid, "awake": awake,
                "heartbeat_s_ago": heartbeat, "service_manager": unit}
    marker = workspace.state_path("daemon_stopped")
    stopped_at = marker.stat().st_mtime if marker.exists() else 0.0
    if newest is not None and heartbeat is not None and heartbeat < 60 and newest > stopped_at:  # not the beats of the one just stopped
        return {"running": True, "what": "a Dagster daemon this workspace did not start", "heartbeat_s_ago": heartbeat}
    why = ("stopped by `service stop`; `service start` starts it" if stopped_by_user(workspace)
           else "the next session's first hook starts it, or `service start`")
    return {"running": False, "what": "nothing", "heartbeat_s_ago": heartbeat, "service_manager": unit, "note": why}


def next_run(cron: str, settings: Settings, now: float) -> str | None:
    """The next time a `M H * * DOW` cron fires after `now`, in the schedules' time zone; None for
    another shape (the UI shows it)."""
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo


    fields = cron.split()
    if len(fields) != 5 or fields[2:4] != ["*", "*"] or not (fields[0].isdigit() and fields[1].isdigit()):
        return None
    weekday = None if fields[4] == "*" else int(fields[4]) % 7 if fields[4].isdigit() else -1
    if weekday == -1:
        return None
    zone = ZoneInfo(timezone_name(settings))
    start = datetime.fromtimestamp(now, zone)
    for days in range(9):
        day = start.date() + timedelta(days=days)
        when = datetime(day.year, day.month, day.day, int(fields[1]), int(fields[0]), tzinfo=zone)
        if when.timestamp() > now and (weekday is None or (when.weekday() + 1) % 7 == weekday):
            return when.isoformat()
    return None


def _iso(timestamp: float) -> str:
    from datetime import datetime

    return datetime.fromtimestamp(timestamp).astimezone().isoformat(timespec="seconds")
