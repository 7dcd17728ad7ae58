"""Builds the Dagster Definitions from defs/; nothing else."""

import dagster as dg

from memory_pipeline.defs.ingest import observation_index, observations, sessions
from memory_pipeline.defs.resources import build_resources
from memory_pipeline.defs.sensors import inbox_sensor, ingest_job

defs = dg.Definitions(
    assets=[sessions, observations, observation_index],
    jobs=[ingest_job],
    sensors=[inbox_sensor],
    resources=build_resources(),
)
