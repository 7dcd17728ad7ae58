"""The project's Dagster definitions, built lazily from the settings (`dg`, `dagster dev -m`)."""

import dagster as dg

from memory_pipeline.config import Settings, configure_process
from memory_pipeline.defs import build_definitions


@dg.definitions
def defs() -> dg.Definitions:
    configure_process()
    return build_definitions(Settings.from_env())
