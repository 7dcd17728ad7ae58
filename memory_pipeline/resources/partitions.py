"""The daily partitions' days: the first one (fixed in the workspace at first use) and which days
are valid, the `--date` check included."""

from __future__ import annotations

from datetime import date, timedelta

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError
from memory_pipeline.resources.workspace import Workspace

DEFAULT_HISTORY_DAYS = 90


def partitions_start(settings: Settings) -> str:
    """MEMORY_PARTITIONS_START, else the workspace's first day: 90 days before its first use, moved
    back to the oldest day imported (kept in state/partitions-start.txt; only ever earlier)."""
    if settings.partitions_start:
        return settings.partitions_start
    proposed = (pipeline.local_today(settings) - timedelta(days=DEFAULT_HISTORY_DAYS)).isoformat()
    return Workspace(settings.workspace).create().first_day(proposed)


def valid_day(day: str, settings: Settings, today: date | None = None) -> bool:
    """A day has a partition: YYYY-MM-DD between the partitions' first day and today (inclusive)."""
    try:
        parsed = date.fromisoformat(day)
    except (TypeError, ValueError):
        return False
    return date.fromisoformat(partitions_start(settings)) <= parsed <= (today or pipeline.today_utc())


def check_day(day: str, settings: Settings) -> str:
    """`day` when it has a partition, else BadInputError saying which days do (the `--date` check)."""
    if not valid_day(day, settings):
        raise BadInputError(f"--date {day} is not a daily partition (YYYY-MM-DD from "
                            f"{partitions_start(settings)} to today)")
    return day


def day_checker(settings: Settings):
    """`valid_day` bound to the settings, for the inbox and import (callable(day) -> bool)."""
    fixed = settings.replace(partitions_start=partitions_start(settings))  # read the workspace once
    return lambda day: valid_day(day, fixed)


def importable_day(settings: Settings):
    """The days `import` accepts (callable(day) -> bool): any day up to today, since an import moves
    the partitions' first day back to its oldest session; with MEMORY_PARTITIONS_START set, none
    before it (the setting wins)."""
    def importable(day: str) -> bool:
        try:
            parsed = date.fromisoformat(day)
        except (TypeError, ValueError):
            return False
        first = date.fromisoformat(settings.partitions_start) if settings.partitions_start else date.min
        return first <= parsed <= pipeline.today_utc()

    return importable
