"""The reflect stage's wiring: the `reflections` asset, reflect_job, the 06:00 schedule and the
token-threshold sensor. reflect_job runs reflections → proposals → memory_md (defs/review.py)."""

from collections import Counter
from datetime import timedelta
from typing import TYPE_CHECKING

import dagster as dg

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.defs.asset_args import AssetArgs
from memory_pipeline.defs.automation import NEW_CODE_VERSION
from memory_pipeline.defs.partitions import loaded_day_checker, reload_hint
from memory_pipeline.defs.resources import LLMResource, RedisResource, WorkspaceResource
from memory_pipeline.errors import LLMError
from memory_pipeline.flows.reflect import (
    REFLECT_WINDOW_DAYS,
    days_to_reflect,
    observed_digest,
    reflect_day,
    unreflected_days,
)

if TYPE_CHECKING:  # what dg.define_asset_job returns
    from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition as AssetJob

GROUP = "reflect"


# Day D reads the observations of D-6…D: a changed observation marks the 7 reflections that read it stale.
WINDOW_MAPPING = dg.TimeWindowPartitionMapping(start_offset=-(REFLECT_WINDOW_DAYS - 1))

REFLECTIONS_SPEC = AssetArgs( group_name=GROUP, deps=[dg.AssetDep("observations", partition_mapping=WINDOW_MAPPING)],
    kinds={"python", "redis"}, automation_condition=NEW_CODE_VERSION,
    description="The Reflector over the 7 days ending at the partition: proposals for MEMORY.md by section "
    "and a summary. Observations older than 3 days are re-distilled first (🔴 + narratives; the Redis hot list "
    "is updated, the files keep the original). Written to `reflections/YYYY-MM-DD.json` and `### 🔭 Reflected`.",
)


def reflections(context: dg.AssetExecutionContext, workspace: WorkspaceResource, llm: LLMResource,
                redis: RedisResource) -> dg.MaterializeResult:
    prompt, model = llm.prompt("reflector"), llm.model_for("reflect")
    try:
        result = reflect_day(workspace.get(), context.partition_key, llm=llm.get_client(), prompt=prompt, model=model,
                             observer_prompt=llm.prompt("observer"), redis_store=redis.get_store())
    except LLMError as exc:
        raise dg.Failure(f"Reflector failed: {exc}") from exc
    r = result.reflection
    for note in result.notes:
        context.log.warning(f"compression: {note}")
    sections: Counter[str] = Counter(d.section for d in r.proposals)
    return dg.MaterializeResult(metadata={
        "observations": len(r.observation_ids), "sessions": len(r.sessions), "redistilled": len(r.redistilled_ids),
        "hot_entries_redistilled": result.hot_entries_redistilled, "proposals": len(r.proposals),
        "by_section": dg.MetadataValue.json(dict(sections)), "input_tokens": r.input_tokens,
        "output_tokens": r.output_tokens, "guidance_level": r.guidance_level, "attempts": r.attempts,
        "llm_calls": r.usage.calls, "prompt_sha": prompt.sha256[:12], "model": model,
        "summary": dg.MetadataValue.md(r.summary or "_nothing to reflect on_"),
    })


def reflect_job(partitions: dg.PartitionsDefinition) -> "AssetJob":
    return dg.define_asset_job(
        "reflect_job",
        selection=dg.AssetSelection.assets("reflections", "proposals", "memory_md"),
        partitions_def=partitions,
        executor_def=dg.in_process_executor,
        description="Reflect on a day's observations, stage the proposals, promote what was approved.",
    )


def reflect_triggers(job: "AssetJob", settings: Settings, partitions: dg.DailyPartitionsDefinition) -> list:
    """The 06:00 schedule (in the user's time zone), the token-threshold sensor and the sensor for
    unreflected history, all requesting reflect_job."""

    @dg.schedule(name="reflect_schedule", cron_schedule="0 6 * * *", job=job,
                 execution_timezone=pipeline.timezone_name(settings),
                 default_status=dg.DefaultScheduleStatus.RUNNING,
                 description="Every day at 06:00 (MEMORY_TIMEZONE, default the machine's): reflections → "
                 "proposals → memory_md for the previous day.")
    def reflect_schedule(context: dg.ScheduleEvaluationContext):
        day = (context.scheduled_execution_time.date() - timedelta(days=1)).isoformat()
        return dg.RunRequest(run_key=f"reflect-{day}", partition_key=day, tags={"memory/trigger": "schedule"})

    @dg.sensor(name="reflect_threshold_sensor", job=job, minimum_interval_seconds=60,
               default_status=dg.DefaultSensorStatus.RUNNING,
               description="Requests a reflection as soon as a day's hot list passes the token threshold "
               "(MEMORY_REFLECT_THRESHOLD_TOKENS, default 40000), once per day (Redis memory:reflect:triggered:{day}).")
    def reflect_threshold_sensor(context: dg.SensorEvaluationContext, redis: RedisResource):
        if not redis.running():  # every observation writes the hot list through Redis, and starts it
            return dg.SkipReason("Redis is not running: no observation since it stopped")
        current = redis.workspace.settings
        today, threshold = pipeline.local_today(current), current.reflect_threshold_tokens
        days = [(today - timedelta(days=1)).isoformat(), today.isoformat()]
        requests = [dg.RunRequest(run_key=f"reflect-threshold-{day}", partition_key=day,
                                  tags={"memory/trigger": "token-threshold", "memory/tokens": str(tokens)})
                    for day, tokens in days_to_reflect(redis.get_store(), days, threshold)]
        return requests or dg.SkipReason("no day over the reflection threshold")

    return [reflect_schedule, reflect_threshold_sensor, unreflected_sensor(job, partitions)]


BACKFILL_PER_TICK = 7


def unreflected_sensor(job: "AssetJob", partitions: dg.DailyPartitionsDefinition) -> dg.SensorDefinition:
    @dg.sensor(name="unreflected_days_sensor", job=job, minimum_interval_seconds=300,
               default_status=dg.DefaultSensorStatus.RUNNING,
               description="Imported or backfilled history: requests reflect_job for days before yesterday "
               "whose observations no reflection has read yet (oldest first, a few per tick). Yesterday "
               "and today are left to the 06:00 schedule and the threshold sensor.")
    def unreflected_days_sensor(context: dg.SensorEvaluationContext, workspace: WorkspaceResource):
        settings = workspace.settings
        before = (pipeline.local_today(settings) - timedelta(days=1)).isoformat()
        ws, valid = workspace.get(), loaded_day_checker(partitions, settings)
        days = [d for d in unreflected_days(ws, before=before) if valid(d)][:BACKFILL_PER_TICK]
        if hint := reload_hint(partitions, settings):
            context.log.warning(hint)
        requests = [dg.RunRequest(run_key=f"reflect-history-{day}-{observed_digest(ws, day)}", partition_key=day,
                                  tags={"memory/trigger": "unreflected-history"}) for day in days]
        return requests or dg.SkipReason("every day with observations is reflected")

    return unreflected_days_sensor


def reflect_assets(partitions: dg.PartitionsDefinition, settings: Settings) -> list[dg.AssetsDefinition]:
    return [dg.asset(partitions_def=partitions, code_version=pipeline.code_version("reflect", settings),
                     **REFLECTIONS_SPEC)(reflections)]


def reflect_defs(partitions: dg.DailyPartitionsDefinition, settings: Settings) -> dg.Definitions:
    job = reflect_job(partitions)
    schedule, *sensors = reflect_triggers(job, settings, partitions)
    return dg.Definitions(jobs=[job], schedules=[schedule], sensors=sensors)
