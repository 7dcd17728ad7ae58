"""The project's Dagster definitions for tests, built from the environment the test set up."""

from __future__ import annotations

import dagster as dg

from memory_pipeline.config import Settings
from memory_pipeline.defs import build_definitions, stage_assets


def definitions() -> dg.Definitions:
    return build_definitions(Settings.from_env())


def assets(*names: str) -> list[dg.AssetsDefinition]:
    """Assets without resources bound: `dg.materialize(assets(...), resources=...)` binds them."""
    by_name = {a.key.to_user_string(): a for a in stage_assets(Settings.from_env())}
    return [by_name[name] for name in names]


def sensor(name: str) -> dg.SensorDefinition:
    return definitions().resolve_sensor_def(name)


def schedule(name: str) -> dg.ScheduleDefinition:
    return definitions().resolve_schedule_def(name)
