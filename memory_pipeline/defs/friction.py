"""The friction stage's wiring: the `friction` asset, friction_job and the 07:00 schedule
(in MEMORY_TIMEZONE, else the machine's time zone), after the 06:00 reflection."""

from datetime import timedelta
from typing import TYPE_CHECKING

import dagster as dg

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.defs.asset_args import AssetArgs
from memory_pipeline.defs.metadata import md_list
from memory_pipeline.defs.resources import EmbedderResource, LLMResource, RedisResource, WorkspaceResource
from memory_pipeline.defs.review import review_clock
from memory_pipeline.errors import LLMError
from memory_pipeline.flows.friction.analysis import analyse_friction
from memory_pipeline.resources.files.memory_files import MemoryFiles
from memory_pipeline.resources.redis.proposals import ProposalStore

if TYPE_CHECKING:  # what dg.define_asset_job returns
    from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition as AssetJob

GROUP = "friction"

FRICTION_SPEC = AssetArgs(group_name=GROUP, deps=["observations"], kinds={"python", "redis"},
    check_specs=[dg.AssetCheckSpec("fixes_cite_evidence", asset="friction",
                                   description="Every staged fix cites observations, messages and sessions.")],
    description="Recurring friction over the 7 days ending at the partition: corrections the user repeated, "
    "commands failing the same way, failures with one cause, clustered (embeddings + shared identifiers) and "
    "scored (sessions × impact). Each finding is staged as a fix f-YYYYMMDD-NNN-xxxx under `## Friction Fixes` in "
    "REVIEW.md; a pattern back after its fix was approved is escalated. Too little data skips with a reason. "
    "Written to `friction/YYYY-MM-DD.json` and `### 🧭 Friction` in the daily log.",
)


def friction(context: dg.AssetExecutionContext, workspace: WorkspaceResource, redis: RedisResource,
             embedder: EmbedderResource, llm: LLMResource) -> dg.MaterializeResult:
    ws, settings = workspace.get(), llm.settings()
    prompt, model = llm.prompt("friction"), llm.model_for("friction")
    today, now = review_clock(context, settings)
    try:
        report, staged = analyse_friction(
            ws, context.partition_key, fixes=ProposalStore(redis.get_store()), embedder=embedder.get(),
            llm=llm.get_client(), prompt=prompt, model=model, min_observations=settings.friction_min_observations,
            min_sessions=settings.friction_min_sessions, today=today, now=now)
    except LLMError as exc:
        raise dg.Failure(f"friction wording failed: {exc}") from exc
    uncited = [p.id for p in staged.staged if not (p.source_observation_ids and p.source_message_ids and p.sessions)]
    check = dg.AssetCheckResult(check_name="fixes_cite_evidence", passed=not uncited,
                                metadata={"uncited": dg.MetadataValue.json(uncited)})
    if report.skipped:
        context.log.info(f"friction skipped: {report.skipped}")
    return dg.MaterializeResult(check_results=[check], metadata={
        "skipped": report.skipped or "", "observations": report.observations, "sessions": report.sessions,
        "signals": dg.MetadataValue.json(report.signals), "findings": len(report.findings),
        "staged": len(report.staged), "staged_ids": md_list(report.staged),
        "recurring": md_list(report.recurring), "not_staged": md_list(report.not_staged),
        "top_findings": md_list([f"{f.kind} ×{len(f.sessions)} sessions (severity {f.severity:g}): {f.pattern}"
                                 for f in report.findings[:10]]),
        "llm_calls": report.usage.calls, "prompt_sha": prompt.sha256[:12], "model": model,
        "review_md": dg.MetadataValue.md(MemoryFiles(ws).read_review() or "_no REVIEW.md_"),
    })


def friction_job(partitions: dg.PartitionsDefinition) -> "AssetJob":
    return dg.define_asset_job(
        "friction_job", selection=dg.AssetSelection.assets("friction"), partitions_def=partitions,
        executor_def=dg.in_process_executor,
        description="Friction analysis of the 7 days ending at the day: recurring problems staged as fixes.",
    )


def friction_schedule(job: "AssetJob", timezone: str) -> dg.ScheduleDefinition:
    @dg.schedule(name="friction_schedule", cron_schedule="0 7 * * *", job=job, execution_timezone=timezone,
                 default_status=dg.DefaultScheduleStatus.RUNNING,
                 description=f"Every day at 07:00 ({timezone}): friction over the 7 days ending the previous day.")
    def _schedule(context: dg.ScheduleEvaluationContext):
        day = (context.scheduled_execution_time.date() - timedelta(days=1)).isoformat()
        return dg.RunRequest(run_key=f"friction-{day}", partition_key=day, tags={"memory/trigger": "schedule"})

    return _schedule


def friction_assets(partitions: dg.PartitionsDefinition, settings: Settings) -> list[dg.AssetsDefinition]:
    return [dg.asset(partitions_def=partitions, code_version=pipeline.code_version("friction", settings),
                     **FRICTION_SPEC)(friction)]


def friction_defs(partitions: dg.PartitionsDefinition, settings: Settings) -> dg.Definitions:
    job = friction_job(partitions)
    return dg.Definitions(jobs=[job], schedules=[friction_schedule(job, pipeline.timezone_name(settings))])
