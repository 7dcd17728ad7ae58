"""The daily partitions every dated asset shares: the day an event was captured."""

import dagster as dg

PARTITIONS_START = "2023-01-01"

# end_offset=1: today's partition exists while the day is still running (events arrive now).
daily_partitions = dg.DailyPartitionsDefinition(start_date=PARTITIONS_START, end_offset=1)
