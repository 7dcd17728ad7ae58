"""The daily partitions every dated asset shares: the day an event was captured."""

from collections.abc import Callable

import dagster as dg

from memory_pipeline.config import Settings
from memory_pipeline.resources import partitions as partition_days


def daily_partitions(settings: Settings) -> dg.DailyPartitionsDefinition:
    # end_offset=1: today's partition exists while the day is still running (events arrive now).
    return dg.DailyPartitionsDefinition(start_date=partition_days.partitions_start(settings), end_offset=1)


def loaded_day_checker(partitions: dg.DailyPartitionsDefinition, settings: Settings) -> Callable[[str], bool]:
    """The days a sensor may request: valid in the workspace now and held by the partitions this
    code location loaded. An import can move the workspace's first day back while the definitions
    are loaded; those older days wait for a reload (the UI's Reload, or `ingest` from the CLI) rather
    than fail as an unknown partition."""
    loaded_start, valid = partitions.start.strftime("%Y-%m-%d"), partition_days.day_checker(settings)
    return lambda day: day >= loaded_start and valid(day)


def reload_hint(partitions: dg.DailyPartitionsDefinition, settings: Settings) -> str | None:
    """What to do when the workspace's partitions now start before the loaded ones, else None."""
    loaded_start, first = partitions.start.strftime("%Y-%m-%d"), partition_days.partitions_start(settings)
    if first >= loaded_start:
        return None
    return (f"the workspace's partitions now start on {first}, the loaded definitions on {loaded_start}: "
            "reload the code location (Reload in the UI) or run `memory-pipeline ingest` for the older days")
