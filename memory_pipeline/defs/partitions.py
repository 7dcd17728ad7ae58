"""The daily partitions every dated asset shares: the day an event was captured."""

import dagster as dg

from memory_pipeline.config import Settings
from memory_pipeline.resources import partitions


def daily_partitions(settings: Settings) -> dg.DailyPartitionsDefinition:
    # end_offset=1: today's partition exists while the day is still running (events arrive now).
    return dg.DailyPartitionsDefinition(start_date=partitions.partitions_start(settings), end_offset=1)
