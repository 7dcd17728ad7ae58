"""The intake stage's wiring: the inbox sensor and the ingest job it triggers."""

from typing import TYPE_CHECKING

import dagster as dg

from memory_pipeline import pipeline
from memory_pipeline.defs.ledger import GROUP as LEDGER_GROUP
from memory_pipeline.defs.observe import GROUP
from memory_pipeline.defs.partitions import loaded_day_checker, reload_hint
from memory_pipeline.defs.resources import WorkspaceResource
from memory_pipeline.flows.intake.inbox import batch_by_day, needs_observation, take_inbox
from memory_pipeline.flows.review.asset_events import transcript_materialization
from memory_pipeline.resources import partitions as partition_days
from memory_pipeline.resources.files.inbox import Inbox

if TYPE_CHECKING:  # what dg.define_asset_job returns
    from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition as AssetJob


SENSOR_INTERVAL_SECONDS = 5  # an emitted event waits half of it on average before its run is requested


def ingest_job() -> "AssetJob":
    return dg.define_asset_job(
        "ingest_job",
        selection=dg.AssetSelection.groups(GROUP, LEDGER_GROUP),
        executor_def=dg.in_process_executor,  # one process: the model loads once, one Qdrant opener
        description="Collect, observe and index one day's sessions; record them in the ledger, build the pack.",
    )


def inbox_sensor(job: "AssetJob", partitions: dg.DailyPartitionsDefinition) -> dg.SensorDefinition:
    @dg.sensor(
        name="inbox_sensor",
        job=job,
        minimum_interval_seconds=SENSOR_INTERVAL_SECONDS,
        default_status=dg.DefaultSensorStatus.RUNNING,
        description="Watches MEMORY_WORKSPACE/inbox: accepts event files (bad ones are quarantined with a "
        "reason), records each accepted event on `transcripts` and requests one run per day for the new events "
        "of that day (run_key = the dedupeKey for one event, derived from the set of keys for several).",
    )
    def _inbox_sensor(context: dg.SensorEvaluationContext, workspace: WorkspaceResource):
        ws, settings = workspace.get(), workspace.settings
        valid_day, loaded = partition_days.day_checker(settings), loaded_day_checker(partitions, settings)
        for outcome in take_inbox(ws, valid_day, settings=settings):
            if outcome.status == "quarantined":
                context.log.warning(f"quarantined {outcome.path.name}: {outcome.reason}")
            elif outcome.status == "duplicate":
                context.log.info(f"duplicate event dropped: {outcome.path.name}")
        cursor = int(context.cursor or 0)
        version = pipeline.code_version("observe", settings)
        pending, transcripts = [], []
        for stamp, event in Inbox(ws).accepted_since(cursor):
            cursor = max(cursor, stamp)
            transcripts.append(transcript_materialization(event))
            if loaded(event.day) and needs_observation(ws, event, version):
                pending.append(event)
            elif valid_day(event.day) and (hint := reload_hint(partitions, settings)):
                context.log.warning(f"event of {event.day} not requested: {hint}")
        requests = [dg.RunRequest(run_key=batch.run_key, partition_key=batch.day, tags=batch.tags())
                    for batch in batch_by_day(pending)]
        context.update_cursor(str(cursor))
        if not requests and not transcripts:
            return dg.SkipReason("no new events in the inbox")
        return dg.SensorResult(run_requests=requests, asset_events=transcripts)

    return _inbox_sensor


def intake_defs(partitions: dg.DailyPartitionsDefinition) -> dg.Definitions:
    job = ingest_job()
    return dg.Definitions(jobs=[job], sensors=[inbox_sensor(job, partitions)])
