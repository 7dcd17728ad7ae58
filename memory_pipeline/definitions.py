"""Builds the Dagster Definitions from defs/; nothing else."""

import dagster as dg

from memory_pipeline.defs.observe import observation_index, observations, sessions
from memory_pipeline.defs.resources import build_resources
from memory_pipeline.defs.intake import inbox_sensor, ingest_job
from memory_pipeline.defs.index import message_index
from memory_pipeline.defs.reflect import memory_md, proposals, reflections
from memory_pipeline.defs.reflect_triggers import (
    reflect_job, reflect_schedule, reflect_threshold_sensor, review_job, review_sensor,
)

defs = dg.Definitions(
    assets=[sessions, observations, observation_index, message_index, reflections, proposals, memory_md],
    jobs=[ingest_job, reflect_job, review_job],
    sensors=[inbox_sensor, reflect_threshold_sensor, review_sensor],
    schedules=[reflect_schedule],
    resources=build_resources(),
)
