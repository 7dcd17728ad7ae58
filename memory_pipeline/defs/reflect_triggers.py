"""What starts reflection and review: the 06:00 schedule, the token-threshold sensor, the REVIEW.md sensor."""

import os
from datetime import date, timedelta

import dagster as dg

from memory_pipeline.defs.partitions import daily_partitions
from memory_pipeline.defs.reflect import memory_md, proposals, reflections
from memory_pipeline.defs.resources import RedisResource, WorkspaceResource
from memory_pipeline.flows.reflect import REFLECT_THRESHOLD_TOKENS, days_to_reflect
from memory_pipeline.resources.memory_files import MemoryFiles, sha256_text

reflect_job = dg.define_asset_job(
    "reflect_job",
    selection=dg.AssetSelection.assets(reflections, proposals, memory_md),
    partitions_def=daily_partitions,
    executor_def=dg.in_process_executor,
    description="Reflect on a day's observations, stage the proposals, promote what was approved.",
)
review_job = dg.define_asset_job(
    "review_job",
    selection=dg.AssetSelection.assets(memory_md),
    partitions_def=daily_partitions,
    executor_def=dg.in_process_executor,
    description="Apply REVIEW.md edits and promote approved proposals into MEMORY.md.",
)


@dg.schedule(cron_schedule="0 6 * * *", job=reflect_job, default_status=dg.DefaultScheduleStatus.RUNNING,
             description="Every day at 06:00: reflections → proposals → memory_md for the previous day.")
def reflect_schedule(context: dg.ScheduleEvaluationContext):
    day = (context.scheduled_execution_time.date() - timedelta(days=1)).isoformat()
    return dg.RunRequest(run_key=f"reflect-{day}", partition_key=day, tags={"memory/trigger": "schedule"})


def threshold_tokens() -> int:
    return int(os.environ.get("MEMORY_REFLECT_THRESHOLD_TOKENS") or REFLECT_THRESHOLD_TOKENS)


@dg.sensor(job=reflect_job, minimum_interval_seconds=60, default_status=dg.DefaultSensorStatus.RUNNING,
           description="Requests a reflection as soon as a day's hot list passes the token threshold "
           "(MEMORY_REFLECT_THRESHOLD_TOKENS, default 40000), once per day (Redis memory:reflect:triggered:{day}).")
def reflect_threshold_sensor(context: dg.SensorEvaluationContext, redis: RedisResource):
    today = date.today()
    days = [(today - timedelta(days=1)).isoformat(), today.isoformat()]
    requests = [dg.RunRequest(run_key=f"reflect-threshold-{day}", partition_key=day,
                              tags={"memory/trigger": "token-threshold", "memory/tokens": str(tokens)})
                for day, tokens in days_to_reflect(redis.get_store(), days, threshold_tokens())]
    return requests or dg.SkipReason("no day over the reflection threshold")


@dg.sensor(job=review_job, minimum_interval_seconds=15, default_status=dg.DefaultSensorStatus.RUNNING,
           description="Watches REVIEW.md (content hash cursor): a user's edit ([x], a deleted line, new text) "
           "requests a memory_md run for today, which applies it and promotes approvals.")
def review_sensor(context: dg.SensorEvaluationContext, workspace: WorkspaceResource):
    files = MemoryFiles(workspace.get())
    text = files.read_review()
    if text is None:
        return dg.SkipReason("no REVIEW.md")
    digest = sha256_text(text)
    if digest == context.cursor or digest == files.rendered().get("sha256"):
        context.update_cursor(digest)
        return dg.SkipReason("REVIEW.md unchanged since the pipeline wrote it")
    context.update_cursor(digest)
    return dg.RunRequest(run_key=f"review-{digest[:16]}", partition_key=date.today().isoformat(),
                         tags={"memory/trigger": "review-md"})
