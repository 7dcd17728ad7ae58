"""The pools' watchdog: a pending step a free slot was never given gets it.

Dagster 1.13's `claim_concurrency_slot` checks for a free slot, then queues the step with "assign now" set
from that check. When the one slot of a pool is freed between the two, `assign_pending_steps` runs before
the step is queued, and nothing assigns it until another slot is freed: on a deployment with one step of a
pool at a time, never (seen once in CI: `deploy/test_postgres_instance.py`, an `observation_index` step
pending 10 minutes beside a free `vector_store` slot). Every tick this sensor gives each pool's free slots
to its oldest unassigned steps, what a freed slot would have done.
"""

import dagster as dg

from memory_pipeline.defs.index import STORE_POOL
from memory_pipeline.defs.review import REVIEW_POOL

POOLS = (STORE_POOL, REVIEW_POOL)
TICK_SECONDS = 30


def assign_stranded_steps(storage, pools=POOLS) -> list[str]:
    """The pools whose free slot went to a pending step; nothing where the storage has no pools."""
    if not getattr(storage, "supports_global_concurrency_limits", False):
        return []
    given = []
    for pool in pools:
        info = storage.get_concurrency_info(pool)
        waiting = [step for step in info.pending_steps if step.assigned_timestamp is None]
        if waiting and storage.has_unassigned_slots(pool):
            storage.assign_pending_steps([pool])
            given.append(pool)
    return given


def pool_sensor() -> dg.SensorDefinition:
    @dg.sensor(name="pool_sensor", minimum_interval_seconds=TICK_SECONDS,
               default_status=dg.DefaultSensorStatus.RUNNING,
               description="Gives a pool's free slot to a step Dagster queued without one (a race in its claim).")
    def _pool_sensor(context: dg.SensorEvaluationContext):
        given = assign_stranded_steps(context.instance.event_log_storage)
        return dg.SkipReason(f"free slot given to a waiting step of {', '.join(given)}" if given
                             else "no step waits beside a free slot")

    return _pool_sensor


def pools_defs() -> dg.Definitions:
    return dg.Definitions(sensors=[pool_sensor()])
