"""Dagster wiring: each stage's assets, jobs, sensors and schedules, built from the settings.

Nothing below this package imports it; `memory_pipeline.definitions` builds it lazily.
"""

import dagster as dg

from memory_pipeline.config import Settings
from memory_pipeline.defs.automation import automation_defs
from memory_pipeline.defs.friction import friction_assets, friction_defs
from memory_pipeline.defs.index import index_assets
from memory_pipeline.defs.intake import intake_defs
from memory_pipeline.defs.ledger import ledger_assets, ledger_defs
from memory_pipeline.defs.maintenance import maintenance_assets, maintenance_defs
from memory_pipeline.defs.observe import observe_assets
from memory_pipeline.defs.partitions import daily_partitions
from memory_pipeline.defs.pools import pools_defs
from memory_pipeline.defs.reflect import reflect_assets, reflect_defs
from memory_pipeline.defs.resources import build_resources
from memory_pipeline.defs.review import review_assets, review_defs


def stage_assets(settings: Settings) -> list[dg.AssetsDefinition | dg.AssetSpec]:
    """Every stage's assets, in data-flow order (the external `transcripts` first), without resources bound."""
    partitions = daily_partitions(settings)
    return [*observe_assets(partitions, settings), *index_assets(partitions, settings),
            *reflect_assets(partitions, settings), *review_assets(partitions, settings),
            *maintenance_assets(partitions, settings), *friction_assets(partitions, settings),
            *ledger_assets(partitions, settings)]


def build_definitions(settings: Settings) -> dg.Definitions:
    partitions = daily_partitions(settings)
    return dg.Definitions.merge(
        # in-process by default: runs the automation sensor starts open the Qdrant store one step at a time
        dg.Definitions(assets=stage_assets(settings), resources=build_resources(settings), executor=dg.in_process_executor),
        intake_defs(partitions), reflect_defs(partitions, settings), review_defs(partitions), automation_defs(),
        maintenance_defs(partitions, settings), friction_defs(partitions, settings), ledger_defs(partitions, settings),
        pools_defs(),
    )
