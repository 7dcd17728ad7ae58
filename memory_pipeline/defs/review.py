"""The review stage's wiring: `proposals` (staged in REVIEW.md) and `memory_md` (approvals promoted),
review_job and the REVIEW.md sensor."""

from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import dagster as dg

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.defs.asset_args import AssetArgs
from memory_pipeline.defs.automation import FOLLOW_UPSTREAM
from memory_pipeline.defs.metadata import md_list
from memory_pipeline.defs.reflect import GROUP
from memory_pipeline.defs.resources import EmbedderResource, RedisResource, WorkspaceResource
from memory_pipeline.flows.reflect import load_reflection
from memory_pipeline.flows.review.asset_events import memory_md_metadata, proposal_sources_metadata
from memory_pipeline.flows.review.decisions import apply_review
from memory_pipeline.flows.review.proposals import stage_proposals
from memory_pipeline.resources.files.memory_files import MemoryFiles, sha256_text
from memory_pipeline.resources.redis.proposals import ProposalStore
from memory_pipeline.stages.review.memory_md import lines_lost, untraceable_ids
from memory_pipeline.stages.tokens import estimate_tokens

if TYPE_CHECKING:  # what dg.define_asset_job returns
    from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition as AssetJob

TODAY_TAG = "memory/today"  # a run tag that sets the review clock (tests, replays)


def review_clock(context, settings: Settings) -> tuple[str, datetime]:
    """(today, now) for review decisions: the run tag memory/today when set, else the clock in
    the user's time zone (MEMORY_TIMEZONE)."""
    now = datetime.now(ZoneInfo(pipeline.timezone_name(settings)))
    return context.run.tags.get(TODAY_TAG) or now.date().isoformat(), now


# The steps that write the review state (proposals in Redis, REVIEW.md, MEMORY.md) share a Dagster
# pool: an instance that limits it (deploy/dagster.yaml) queues them one at a time across concurrent
# runs, instead of a step timing out on the workspace's review lock.
REVIEW_POOL = "review"

PROPOSALS_SPEC = AssetArgs( group_name=GROUP, deps=["reflections"], automation_condition=FOLLOW_UPSTREAM,
    kinds={"redis"}, pool=REVIEW_POOL,
    check_specs=[dg.AssetCheckSpec("proposals_cite_sources", asset="proposals",
                                   description="Every staged proposal cites an observation and a session.")],
    description="The day's reflection staged for review: proposals p-YYYYMMDD-NNN-xxxx in Redis and REVIEW.md. "
    "Proposals that repeat MEMORY.md or an earlier proposal (exactly or by embedding similarity) are skipped.",
)


def proposals(context: dg.AssetExecutionContext, workspace: WorkspaceResource, redis: RedisResource,
              embedder: EmbedderResource) -> dg.MaterializeResult:
    ws, day = workspace.get(), context.partition_key
    reflection = load_reflection(ws, day)
    if reflection is None:
        raise dg.Failure(f"no reflection for {day}: materialize `reflections` for this day first")
    today, now = review_clock(context, workspace.settings)
    report = stage_proposals(ws, ProposalStore(redis.get_store()), reflection, embedder=embedder.get(),
                             today=today, now=now, settings=workspace.settings)
    uncited = [p.id for p in report.staged if not (p.source_observation_ids and p.sessions)]
    check = dg.AssetCheckResult(check_name="proposals_cite_sources", passed=not uncited,
                                metadata={"uncited": dg.MetadataValue.json(uncited)})
    return dg.MaterializeResult(check_results=[check], metadata={
        "staged": len(report.staged), "skipped": len(report.skipped), "pending": report.pending,
        "staged_ids": md_list([p.id for p in report.staged]), **proposal_sources_metadata(report.staged),
        "skipped_reasons": md_list(report.skipped),
        "review_md": dg.MetadataValue.md(MemoryFiles(ws).read_review() or "_no REVIEW.md_"),
    })


class MemoryMdConfig(dg.Config):
    budget_tokens: int = 6000  # MEMORY.md is read at every session start: keep it short


MEMORY_MD_SPEC = AssetArgs( group_name=GROUP, deps=["proposals"],
    kinds={"python"}, pool=REVIEW_POOL,
    check_specs=[
        dg.AssetCheckSpec("no_content_lost", asset="memory_md",
                          description="Every line of the previous day's snapshot is still in MEMORY.md."),
        dg.AssetCheckSpec("within_budget", asset="memory_md", description="MEMORY.md fits its token budget."),
        dg.AssetCheckSpec("promoted_lines_traceable", asset="memory_md",
                          description="Every promoted line names an approved proposal."),
    ],
    description="MEMORY.md as of the day: REVIEW.md edits applied, unreviewed proposals older than 7 days "
    "expired, approved ones appended to their section with a (YYYY-MM-DD) prefix; a snapshot is kept in "
    "`state/memory_snapshots/YYYY-MM-DD.md`. Nothing already in MEMORY.md is changed.",
)


def memory_md(context: dg.AssetExecutionContext, config: MemoryMdConfig, workspace: WorkspaceResource,
              redis: RedisResource) -> dg.MaterializeResult:
    ws, day = workspace.get(), context.partition_key
    store = ProposalStore(redis.get_store())
    today, now = review_clock(context, workspace.settings)
    report = apply_review(ws, store, today=today, now=now, snapshot_day=day)
    for message in report.messages + report.errors:
        context.log.warning(message)
    files = MemoryFiles(ws)
    text, previous = files.read_memory(), files.previous_snapshot(day)
    replaced = {p.replaces.rstrip() for p in store.all().values() if p.replaces}  # swapped with the user's --replace
    lost = [line for line in lines_lost(previous[1], text) if line not in replaced] if previous else []
    approved = {p.id for p in store.all().values() if p.status == "approved"}
    untraced = untraceable_ids(text, previous[1] if previous else "", approved)
    tokens = estimate_tokens(text)
    checks = [
        dg.AssetCheckResult(check_name="no_content_lost", passed=not lost, severity=dg.AssetCheckSeverity.WARN,
                            metadata={"previous_snapshot": previous[0] if previous else "none",
                                      "lost_lines": dg.MetadataValue.json(lost[:50])}),
        dg.AssetCheckResult(check_name="within_budget", passed=tokens <= config.budget_tokens,
                            severity=dg.AssetCheckSeverity.WARN,
                            metadata={"tokens": tokens, "budget_tokens": config.budget_tokens}),
        dg.AssetCheckResult(check_name="promoted_lines_traceable", passed=not untraced,
                            metadata={"untraceable_ids": dg.MetadataValue.json(untraced)}),
    ]
    return dg.MaterializeResult(check_results=checks, metadata={
        **memory_md_metadata(ws, store, report), "changed_by": context.run.tags.get("memory/trigger", "run"),
        "memory_tokens": tokens, "snapshot": dg.MetadataValue.path(str(files.snapshot_path(day))),
    })


def review_job(partitions: dg.PartitionsDefinition) -> "AssetJob":
    return dg.define_asset_job(
        "review_job",
        selection=dg.AssetSelection.assets("memory_md"),
        partitions_def=partitions,
        executor_def=dg.in_process_executor,
        description="Apply REVIEW.md edits and promote approved proposals into MEMORY.md.",
    )


def review_sensor(job: "AssetJob") -> dg.SensorDefinition:
    @dg.sensor(name="review_sensor", job=job, minimum_interval_seconds=15,
               default_status=dg.DefaultSensorStatus.RUNNING,
               description="Watches REVIEW.md (content hash cursor): a user's edit ([x], a deleted line, new text) "
               "requests a memory_md run for today, which applies it and promotes approvals.")
    def watch_review_md(context: dg.SensorEvaluationContext, workspace: WorkspaceResource):
        files = MemoryFiles(workspace.get())
        text = files.read_review()
        if text is None:
            return dg.SkipReason("no REVIEW.md")
        digest = sha256_text(text)
        if digest == context.cursor or digest == files.rendered().get("sha256"):
            context.update_cursor(digest)
            return dg.SkipReason("REVIEW.md unchanged since the pipeline wrote it")
        context.update_cursor(digest)
        today = pipeline.local_today(workspace.settings).isoformat()
        return dg.RunRequest(run_key=f"review-{digest[:16]}", partition_key=today,
                             tags={"memory/trigger": "review-md"})

    return watch_review_md


def review_assets(partitions: dg.PartitionsDefinition, settings: Settings) -> list[dg.AssetsDefinition]:
    return [
        dg.asset(partitions_def=partitions, code_version=pipeline.code_version("proposals", settings),
                 **PROPOSALS_SPEC)(proposals),
        dg.asset(partitions_def=partitions, code_version=pipeline.code_version("memory_md", settings),
                 **MEMORY_MD_SPEC)(memory_md),
    ]


def review_defs(partitions: dg.PartitionsDefinition) -> dg.Definitions:
    job = review_job(partitions)
    return dg.Definitions(jobs=[job], sensors=[review_sensor(job)])
