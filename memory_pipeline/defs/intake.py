"""The inbox sensor and the ingest job it triggers."""


import dagster as dg

from memory_pipeline.defs.observe import GROUP, observer_code_version
from memory_pipeline.defs.partitions import daily_partitions
from memory_pipeline.defs.resources import WorkspaceResource
from memory_pipeline.flows.intake import needs_observation, take_inbox
from memory_pipeline.resources.inbox import Inbox

ingest_job = dg.define_asset_job(
    "ingest_job",
    selection=dg.AssetSelection.groups(GROUP),
    executor_def=dg.in_process_executor,  # one process: the model loads once, one Qdrant opener
    description="Collect, observe and index one day's sessions.",
)


def valid_day(day: str) -> bool:
    return daily_partitions.has_partition_key(day)


@dg.sensor(
    job=ingest_job,
    minimum_interval_seconds=15,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Watches MEMORY_WORKSPACE/inbox: accepts event files (bad ones are quarantined with a "
    "reason) and requests one run per new event for its day, run_key = dedupeKey.",
)
def inbox_sensor(context: dg.SensorEvaluationContext, workspace: WorkspaceResource):
    ws = workspace.get()
    for outcome in take_inbox(ws, valid_day):
        if outcome.status == "quarantined":
            context.log.warning(f"quarantined {outcome.path.name}: {outcome.reason}")
        elif outcome.status == "duplicate":
            context.log.info(f"duplicate event dropped: {outcome.path.name}")
    cursor = int(context.cursor or 0)
    version = observer_code_version()
    requests = []
    for stamp, event in Inbox(ws).accepted_since(cursor):
        cursor = max(cursor, stamp)
        if valid_day(event.day) and needs_observation(ws, event, version):
            requests.append(dg.RunRequest(
                run_key=event.data.dedupe_key,
                partition_key=event.day,
                tags={"memory/session": event.data.session_id, "memory/trigger": event.data.trigger},
            ))
    context.update_cursor(str(cursor))
    if not requests:
        return dg.SkipReason("no new events in the inbox")
    return requests
