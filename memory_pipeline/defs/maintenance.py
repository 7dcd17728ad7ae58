"""The maintenance stage's wiring: the nightly `maintenance` asset (02:00 in the user's time zone)
and the weekly index audit (Sunday 03:00), each with its job and schedule."""

from datetime import timedelta
from typing import TYPE_CHECKING

import dagster as dg

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.defs.asset_args import AssetArgs
from memory_pipeline.defs.index import STORE_POOL
from memory_pipeline.defs.metadata import md_list
from memory_pipeline.defs.resources import EmbedderResource, RedisResource, VectorStoreResource, WorkspaceResource
from memory_pipeline.flows.feedback import process_feedback
from memory_pipeline.flows.index.messages import backfill_passages
from memory_pipeline.flows.maintenance import audit_index, maintain_day
from memory_pipeline.flows.runs import TODAY_TAG
from memory_pipeline.flows.store_check import store_checked
from memory_pipeline.resources.files.inbox import Inbox

if TYPE_CHECKING:  # what dg.define_asset_job returns
    from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition as AssetJob

GROUP = "maintenance"

MAINTENANCE_SPEC = AssetArgs(
    group_name=GROUP, deps=["observation_index"], kinds={"qdrant", "redis"}, pool=STORE_POOL,  # writes the store
    description="Nightly hygiene for the day: the vector store checked against what was indexed (a lost "
    "or damaged shard rebuilt from the files on disk), queued agent answers judged (echo/fizzle: a memory the agent "
    "used +0.1, one it ignored −0.05), its facts merged into near-duplicates already remembered (one "
    "memory, every source, the freshest wording), memories older than MEMORY_STALE_AFTER_DAYS with no recall "
    "and no echo tagged stale (recall de-ranks them; a recalled one is untagged), Redis keys past their window "
    "dropped, the store compacted (merged facts' vectors dropped, local week stores vacuumed, empty ones "
    "removed), the passages of days indexed before passages existed added (newest first, ten minutes a night). "
    "Counts in the metadata; a report in state/maintenance/.",
)


def maintenance(context: dg.AssetExecutionContext, workspace: WorkspaceResource, vector_store: VectorStoreResource,
                embedder: EmbedderResource, redis: RedisResource) -> dg.MaterializeResult:
    ws, day, settings = workspace.get(), context.partition_key, workspace.settings
    today = context.run.tags.get(TODAY_TAG) or pipeline.local_today(settings).isoformat()
    store_line = store_checked(ws, settings, "maintenance")  # the daemon's path: no `ingest` is typed
    model, redis_store = embedder.get(), redis.get_store()
    store = vector_store.get_store(model.dimension)
    feedback = process_feedback(ws, redis_store, model, store)  # answers the Stop hook queued
    report = maintain_day(ws, store, redis_store, day, today=today, settings=settings)
    # the passages of days indexed before they existed (a workspace from an older version), a night's share
    backfilled, passages = backfill_passages(store, model, ws.state_path("index"))
    groups = [f"`{g['keep'][:8]}` ← {len(g['members']) - 1} merged" for g in report.merge_groups]
    return dg.MaterializeResult(metadata={
        "memories": report.memories, "merged": report.merged, "tagged_stale": report.tagged_stale,
        "unstaled": report.unstaled, "redis_keys_removed": report.redis_keys_removed,
        "vectors_dropped": report.vectors_dropped, "stores_vacuumed": report.stores_vacuumed,
        "stores_removed": report.stores_removed, "store_bytes_reclaimed": report.store_bytes_reclaimed,
        "bytes_reclaimed": report.bytes_reclaimed, "merge_groups": md_list(groups),
        "answers_judged": feedback.answers, "boosted": len(feedback.used), "penalized": len(feedback.ignored),
        "passage_days_backfilled": len(backfilled), "passages_backfilled": passages,
        "vector_store": store_line or "whole",
    })


INDEX_AUDIT_SPEC = AssetArgs(
    group_name=GROUP, deps=["observation_index"], kinds={"qdrant"},
    check_specs=[dg.AssetCheckSpec("rebuild_equals_live", asset="index_audit",
                                   description="The observation tier rebuilt from the observation files has "
                                   "exactly the live store's points.")],
    description="Weekly: the observation tier's points rebuilt from every day's observation files and compared "
    "with the live store (missing and unexplained points listed).",
)


def index_audit(workspace: WorkspaceResource, vector_store: VectorStoreResource,
                embedder: EmbedderResource) -> dg.MaterializeResult:
    ws = workspace.get()
    audit = audit_index(ws, vector_store.get_store(embedder.get().dimension), Inbox(ws).accepted_days())
    check = dg.AssetCheckResult(check_name="rebuild_equals_live", passed=audit.equal,
                                metadata={"missing": len(audit.missing), "extra": len(audit.extra)})
    return dg.MaterializeResult(check_results=[check], metadata={
        "expected": audit.expected, "stored": audit.stored, "missing": md_list(audit.missing[:20]),
        "extra": md_list(audit.extra[:20]),
    })


def maintenance_assets(partitions: dg.PartitionsDefinition, settings: Settings) -> list[dg.AssetsDefinition]:
    return [
        dg.asset(partitions_def=partitions, code_version=pipeline.code_version("maintenance", settings),
                 **MAINTENANCE_SPEC)(maintenance),
        dg.asset(code_version=pipeline.code_version("index_audit", settings), **INDEX_AUDIT_SPEC)(index_audit),
    ]


def maintenance_defs(partitions: dg.PartitionsDefinition, settings: Settings) -> dg.Definitions:
    nightly: AssetJob = dg.define_asset_job(
        "maintenance_job", selection=dg.AssetSelection.assets("maintenance"), partitions_def=partitions,
        executor_def=dg.in_process_executor,
        description="Merge duplicates, tag stale memories, compact Redis and the vector store.")
    weekly: AssetJob = dg.define_asset_job(
        "maintenance_weekly", selection=dg.AssetSelection.assets("index_audit"), executor_def=dg.in_process_executor,
        description="Rebuild the observation index's point list from the files and check it equals the store.")
    tz = pipeline.timezone_name(settings)

    @dg.schedule(name="maintenance_schedule", cron_schedule="0 2 * * *", execution_timezone=tz, job=nightly,
                 default_status=dg.DefaultScheduleStatus.RUNNING,
                 description="Every night at 02:00 (MEMORY_TIMEZONE): maintenance for the previous day.")
    def maintenance_schedule(context: dg.ScheduleEvaluationContext):
        day = (context.scheduled_execution_time.date() - timedelta(days=1)).isoformat()
        return dg.RunRequest(run_key=f"maintenance-{day}", partition_key=day, tags={"memory/trigger": "schedule"})

    weekly_schedule = dg.ScheduleDefinition(
        name="maintenance_weekly_schedule", cron_schedule="0 3 * * 0", execution_timezone=tz, job=weekly,
        default_status=dg.DefaultScheduleStatus.RUNNING, description="Sundays at 03:00 (MEMORY_TIMEZONE): the index audit.")
    return dg.Definitions(jobs=[nightly, weekly], schedules=[maintenance_schedule, weekly_schedule])
