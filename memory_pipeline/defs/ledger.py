"""The ledger stage's wiring: `ledger` (observations → memory/ledger.jsonl), `recall_pack`
(ledger → recall/pack.md, integrity report, knowledge/) with their asset checks, and the weekly
rebuild (`ledger_maintenance`, job and schedule `ledger_weekly`, Sundays 04:00)."""


from collections import Counter
from datetime import date
from typing import TYPE_CHECKING

import dagster as dg

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.defs.asset_args import AssetArgs
from memory_pipeline.defs.metadata import md_list
from memory_pipeline.defs.resources import EmbedderResource, LLMResource, WorkspaceResource
from memory_pipeline.defs.review import TODAY_TAG
from memory_pipeline.errors import LLMError
from memory_pipeline.flows.ledger.events import record_day
from memory_pipeline.flows.ledger.pack import build_packs
from memory_pipeline.flows.ledger.weekly import weekly_rebuild

if TYPE_CHECKING:
    from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition as AssetJob

GROUP = "ledger"
LEDGER_CHECKS = {
    "valid_json": "Every ledger line is a valid event (a bad line is reported with its number).",
    "unique_ids": "No event id appears twice (ledger and archive).",
    "sequential_ids": "Ids are EVT-YYYYMMDD-NNN, numbered 1..N per day without gaps, in order.",
    "supersedes_resolve": "Every `supersedes` names an existing event.",
    "related_resolve": "Every `related` id exists.",
    "open_loops_index_consistent": "memory/index/open-loops.json holds only open commitments.",
    "open_loop_completeness": "Every open commitment is in memory/index/open-loops.json.",
    "checkpoint_valid": "memory/checkpoint.json names an existing event.",
}
PACK_CHECKS = {
    "binding_never_decayed": "No binding event (commitment, constraint, procedure, decision) left the pack by decay.",
    "p0_coverage": "Every active P0 event is in the pack.",
    "p0_p1_coverage": "Every active P0/P1 event is in the pack (warning: the word budget may leave P1 out).",
    "pack_within_budget": "Every pack has at most 3,000 words.",
}


def _results(report, names: dict[str, str]) -> list[dg.AssetCheckResult]:
    by_name = {c.name: c for c in report.checks}
    return [dg.AssetCheckResult(
        check_name=name, passed=by_name[name].passed,
        severity=dg.AssetCheckSeverity.WARN if by_name[name].severity == "warn" else dg.AssetCheckSeverity.ERROR,
        metadata={"count": by_name[name].count, "found": dg.MetadataValue.json(by_name[name].found)})
        for name in names]


def ledger(context: dg.AssetExecutionContext, workspace: WorkspaceResource, llm: LLMResource,
           embedder: EmbedderResource) -> dg.MaterializeResult:
    prompt, model = llm.prompt("ledger"), llm.model_for("ledger")
    try:
        result = record_day(workspace.get(), context.partition_key, llm=llm.get_client(), prompt=prompt,
                            model=model, embedder=embedder.get())
    except LLMError as exc:
        raise dg.Failure(f"ledger typing failed: {exc}") from exc
    report = result.report
    if report is None:  # record_day checks the ledger after every write
        raise dg.Failure("the ledger day came back without its integrity report")
    for line in report.summary():
        context.log.error(f"ledger integrity: {line}")
    types: Counter[str] = Counter(e.type for e in result.appended)
    return dg.MaterializeResult(check_results=_results(report, LEDGER_CHECKS), metadata={
        "facts": result.facts, "appended": len(result.appended), "by_type": dg.MetadataValue.json(dict(types)),
        "superseding": md_list([f"{e.id} supersedes {e.supersedes}: {e.content}" for e in result.superseding]),
        "llm_calls": result.usage.calls, "prompt_sha": prompt.sha256[:12], "model": model,
        "ledger": dg.MetadataValue.path(str(workspace.get().ledger_path)),
    })


def recall_pack(context: dg.AssetExecutionContext, workspace: WorkspaceResource) -> dg.MaterializeResult:
    build = build_packs(workspace.get(), context.partition_key)
    for line in build.report.summary():
        context.log.error(f"integrity: {line}")
    main = build.pack()
    return dg.MaterializeResult(check_results=_results(build.report, PACK_CHECKS), metadata={
        "words": main.words, "projects": len(build.packs), "included": len(main.included),
        "omitted_for_budget": dg.MetadataValue.json({k: len(v) for k, v in main.omitted.items()}),
        "expired": len(main.excluded_expired), "conflicts": len(main.conflicts),
        "section_words": dg.MetadataValue.json(main.section_words), "written": md_list(build.written),
        "knowledge_changed": len(build.knowledge_changed), "integrity_passed": build.report.passed,
        "pack": dg.MetadataValue.md(main.text),
    })


def ledger_maintenance(context: dg.AssetExecutionContext, workspace: WorkspaceResource) -> dg.MaterializeResult:
    day = context.run.tags.get(TODAY_TAG) or date.today().isoformat()
    result = weekly_rebuild(workspace.get(), day)
    check = dg.AssetCheckResult(check_name="weekly_index_matches_incremental", passed=result.index_matches,
                                # None (no incremental index kept yet) is stored as JSON null, which dagster's
                                # annotation leaves out
                                metadata={"incremental": dg.MetadataValue.json(result.incremental),  # type: ignore[arg-type]
                                          "rebuilt": dg.MetadataValue.json(result.rebuilt)})
    return dg.MaterializeResult(check_results=[check], metadata={
        "open_loops": len(result.rebuilt), "archived_events": result.archived,
        "summary_events": md_list(result.summaries), "integrity_passed": bool(result.report and result.report.passed)})


def ledger_assets(partitions: dg.PartitionsDefinition, settings: Settings) -> list[dg.AssetsDefinition]:
    ledger_spec = AssetArgs(group_name=GROUP, deps=["observations"], kinds={"python"},
                       description="Each observation fact as a typed event (fact, decision, preference, commitment, "
                       "constraint, procedure, relationship; P0–P3) appended to `memory/ledger.jsonl` with id "
                       "EVT-YYYYMMDD-NNN; contradictions supersede, commitments open and close, related events "
                       "chain. Never edited; a re-run adds nothing. Code version: prompts/ledger.md + model.",
                       check_specs=[dg.AssetCheckSpec(n, asset="ledger", description=d) for n, d in LEDGER_CHECKS.items()])
    pack_spec = AssetArgs(group_name=GROUP, deps=["ledger"], kinds={"python"},
                     description="`recall/pack.md` (one per project): fixed sections and word budgets (≤ 3,000 words), "
                     "superseded and expired events left out, binding types never decayed, ⚠️ STALE and ⚠️ CONFLICT "
                     "flags, open commitments oldest first; plus memory/integrity-report.json and knowledge/.",
                     check_specs=[dg.AssetCheckSpec(n, asset="recall_pack", description=d) for n, d in PACK_CHECKS.items()])
    weekly_spec = AssetArgs(group_name=GROUP + "_weekly", kinds={"python"},
                       description="Weekly: resolved chains older than 30 days archived to "
                       "memory/ledger-archive-YYYY.jsonl (one summary event each; P0/P1 never), the open-loops "
                       "index rebuilt from scratch and compared with the incremental one.",
                       check_specs=[dg.AssetCheckSpec("weekly_index_matches_incremental", asset="ledger_maintenance",
                                                      description="The rebuilt index equals the incremental one.")])
    return [
        dg.asset(partitions_def=partitions, code_version=pipeline.code_version("ledger", settings), **ledger_spec)(ledger),
        dg.asset(partitions_def=partitions, code_version=pipeline.code_version("recall_pack", settings),
                 **pack_spec)(recall_pack),
        dg.asset(code_version=pipeline.code_version("ledger_maintenance", settings), **weekly_spec)(ledger_maintenance),
    ]


def ledger_defs(partitions: dg.PartitionsDefinition, settings: Settings) -> dg.Definitions:
    tz = pipeline.timezone_name(settings)
    job = dg.define_asset_job("ledger_weekly", selection=dg.AssetSelection.assets("ledger_maintenance"),
                              executor_def=dg.in_process_executor,
                              description="Archive resolved chains and rebuild the open-loops index.")

    @dg.schedule(name="ledger_weekly_schedule", cron_schedule="0 4 * * 0", job=job, execution_timezone=tz,
                 default_status=dg.DefaultScheduleStatus.RUNNING,
                 description="Sundays 04:00 (MEMORY_TIMEZONE): ledger compaction and the full open-loops index rebuild.")
    def ledger_weekly_schedule(context: dg.ScheduleEvaluationContext):
        day = context.scheduled_execution_time.date().isoformat()
        return dg.RunRequest(run_key=f"ledger-weekly-{day}", tags={TODAY_TAG: day})

    daily = pack_job(partitions)
    return dg.Definitions(jobs=[job, daily], schedules=[ledger_weekly_schedule, pack_schedule(daily, tz)])


def pack_job(partitions: dg.PartitionsDefinition) -> "AssetJob":
    return dg.define_asset_job("recall_pack_daily", selection=dg.AssetSelection.assets("recall_pack"),
                               partitions_def=partitions, executor_def=dg.in_process_executor,
                               description="Rebuild the recall pack for today: ages, expiries and STALE flags move "
                               "with the date even on a day without sessions.")


def pack_schedule(job: "AssetJob", timezone: str) -> dg.ScheduleDefinition:
    @dg.schedule(name="recall_pack_schedule", cron_schedule="30 5 * * *", job=job,
                 execution_timezone=timezone, default_status=dg.DefaultScheduleStatus.RUNNING,
                 description=f"Every day at 05:30 ({timezone}): the recall pack rebuilt for the day, so the "
                 "briefing never serves an old pack. Missed while the machine was off: runs once when it is back.")
    def recall_pack_schedule(context: dg.ScheduleEvaluationContext):
        day = context.scheduled_execution_time.date().isoformat()
        return dg.RunRequest(run_key=f"recall-pack-{day}", partition_key=day, tags={"memory/trigger": "schedule"})

    return recall_pack_schedule
