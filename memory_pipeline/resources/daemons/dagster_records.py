"""The Dagster instance's schedule, tick and heartbeat records read straight from its SQLite files
(DAGSTER_HOME/schedules/schedules.db, history/runs.db), read-only, so `service status` answers
without importing dagster. An instance with its own storage configured (PostgreSQL) is not read
here: `sqlite_instance` says so and the caller opens the instance instead."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

STORAGE_KEYS = ("storage", "run_storage", "schedule_storage", "event_log_storage")


def sqlite_instance(home: Path) -> bool:
    try:
        config = (home / "dagster.yaml").read_text(encoding="utf-8")
    except OSError:
        return False
    return not any(line.split(":")[0].strip() in STORAGE_KEYS for line in config.splitlines())


def _rows(path: Path, query: str) -> list[tuple]:
    if not path.exists():
        return []
    # Without a write-ahead log beside it the file holds everything: open it as immutable, which
    # creates no -wal or -shm file (a new -wal would tell `pending_days` that runs changed).
    mode = "mode=ro" if Path(f"{path}-wal").exists() else "immutable=1"
    try:
        with sqlite3.connect(f"file:{path}?{mode}", uri=True, timeout=5) as db:
            return db.execute(query).fetchall()
    except sqlite3.Error:
        return []


def instigators(home: Path) -> list[dict]:
    """Each sensor and schedule the daemon has evaluated: name, kind, cron, last tick."""
    found = []
    for origin_id, body in _rows(home / "schedules" / "schedules.db", "select job_origin_id, job_body from jobs"):
        try:
            state = json.loads(body)
        except ValueError:
            continue
        kind = state.get("job_type", {}).get("__enum__", "").rsplit(".", 1)[-1]
        found.append({"name": state.get("origin", {}).get("job_name"), "kind": kind.lower(),
                      "cron": (state.get("job_specific_data") or {}).get("cron_schedule"),
                      "last_tick": last_tick(home, origin_id)})
    return found


def last_tick(home: Path, origin_id: str) -> dict | None:
    rows = _rows(home / "schedules" / "schedules.db",
                 f"select tick_body from job_ticks where job_origin_id = '{origin_id.replace(chr(39), '')}' "
                 "order by timestamp desc limit 1")
    if not rows:
        return None
    try:
        tick = json.loads(rows[0][0])
    except ValueError:
        return None
    return {"timestamp": tick.get("timestamp"), "status": tick.get("status", {}).get("__enum__", "").rsplit(".", 1)[-1].lower(),
            "runs": len(tick.get("run_ids") or [])}


def newest_heartbeat(home: Path) -> float | None:
    stamps = []
    for (body,) in _rows(home / "history" / "runs.db", "select body from daemon_heartbeats"):
        try:
            stamps.append(float(json.loads(body)["timestamp"]))
        except (ValueError, KeyError, TypeError):
            continue
    return max(stamps, default=None)


IN_PROGRESS = ("QUEUED", "NOT_STARTED", "STARTING", "STARTED", "CANCELING")
STUCK_AFTER_HOURS = 6  # a run "started" longer ago than this without a change lost its process: not waited for


def runs_in_progress(home: Path) -> int:
    """Runs queued, starting or running (updated in the last few hours), from history/runs.db."""
    statuses = ", ".join(f"'{status}'" for status in IN_PROGRESS)
    rows = _rows(home / "history" / "runs.db",
                 f"select count(*) from runs where status in ({statuses}) "
                 f"and update_timestamp > datetime('now', '-{STUCK_AFTER_HOURS} hours')")
    return int(rows[0][0]) if rows else 0
