"""Assets of reflection and review: reflections → proposals → memory_md (daily partitions)."""

from collections import Counter
from datetime import datetime

import dagster as dg

from memory_pipeline.defs.observe import observations
from memory_pipeline.defs.metadata import md_list
from memory_pipeline.defs.partitions import daily_partitions
from memory_pipeline.defs.resources import EmbedderResource, LLMResource, RedisResource, WorkspaceResource
from memory_pipeline.errors import LLMError
from memory_pipeline.flows.proposals import stage_proposals
from memory_pipeline.flows.reflect import load_reflection, reflect_day
from memory_pipeline.flows.review import apply_review
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.memory_files import MemoryFiles
from memory_pipeline.resources.proposals import ProposalStore
from memory_pipeline.stages.review.memory_md import lines_lost, promoted_ids, untraceable_ids
from memory_pipeline.stages.tokens import estimate_tokens

GROUP = "reflect"
TODAY_TAG = "memory/today"  # a run tag that sets the review clock (tests, replays)


def reflector_code_version() -> str:
    return load_prompt("reflector").code_version(LLMResource(workspace=WorkspaceResource()).model_for("reflector"))


def review_clock(context) -> tuple[str, datetime]:
    """(today, now) for review decisions: the run tag memory/today when set, else the local clock."""
    now = datetime.now().astimezone()
    return context.run.tags.get(TODAY_TAG) or now.date().isoformat(), now


@dg.asset(
    partitions_def=daily_partitions, group_name=GROUP, deps=[observations], code_version=reflector_code_version(),
    kinds={"python", "redis"},
    description="The Reflector over the 7 days ending at the partition: proposals for MEMORY.md by section "
    "and a summary. Observations older than 3 days are re-distilled first (🔴 + narratives; the Redis hot list "
    "is updated, the files keep the original). Written to `reflections/YYYY-MM-DD.json` and `### 🔭 Reflected`.",
)
def reflections(context: dg.AssetExecutionContext, workspace: WorkspaceResource, llm: LLMResource,
                redis: RedisResource) -> dg.MaterializeResult:
    prompt, model = load_prompt("reflector"), llm.model_for("reflector")
    try:
        result = reflect_day(workspace.get(), context.partition_key, llm=llm.get_client(), prompt=prompt, model=model,
                             observer_prompt=load_prompt("observer"), redis_store=redis.get_store())
    except LLMError as exc:
        raise dg.Failure(f"Reflector failed: {exc}") from exc
    r = result.reflection
    for note in result.notes:
        context.log.warning(f"compression: {note}")
    sections = Counter(d.section for d in r.proposals)
    return dg.MaterializeResult(metadata={
        "observations": len(r.observation_ids), "sessions": len(r.sessions), "redistilled": len(r.redistilled_ids),
        "hot_entries_redistilled": result.hot_entries_redistilled, "proposals": len(r.proposals),
        "by_section": dg.MetadataValue.json(dict(sections)), "input_tokens": r.input_tokens,
        "output_tokens": r.output_tokens, "guidance_level": r.guidance_level, "attempts": r.attempts,
        "llm_calls": r.usage.calls, "prompt_sha": prompt.sha256[:12], "model": model,
        "summary": dg.MetadataValue.md(r.summary or "_nothing to reflect on_"),
    })


@dg.asset(
    partitions_def=daily_partitions, group_name=GROUP, deps=[reflections], code_version="proposals-1",
    kinds={"redis"},
    check_specs=[dg.AssetCheckSpec("proposals_cite_sources", asset="proposals",
                                   description="Every staged proposal cites an observation and a session.")],
    description="The day's reflection staged for review: proposals p-YYYYMMDD-NNN in Redis and REVIEW.md. "
    "Proposals that repeat MEMORY.md or an earlier proposal (exactly or by embedding similarity) are skipped.",
)
def proposals(context: dg.AssetExecutionContext, workspace: WorkspaceResource, redis: RedisResource,
              embedder: EmbedderResource) -> dg.MaterializeResult:
    ws, day = workspace.get(), context.partition_key
    reflection = load_reflection(ws, day)
    if reflection is None:
        raise dg.Failure(f"no reflection for {day}: materialize `reflections` for this day first")
    today, now = review_clock(context)
    report = stage_proposals(ws, ProposalStore(redis.get_store()), reflection, embedder=embedder.get(),
                             today=today, now=now)
    uncited = [p.id for p in report.staged if not (p.source_observation_ids and p.sessions)]
    check = dg.AssetCheckResult(check_name="proposals_cite_sources", passed=not uncited,
                                metadata={"uncited": dg.MetadataValue.json(uncited)})
    return dg.MaterializeResult(check_results=[check], metadata={
        "staged": len(report.staged), "skipped": len(report.skipped), "pending": report.pending,
        "staged_ids": md_list([p.id for p in report.staged]),
        "skipped_reasons": md_list(report.skipped),
        "review_md": dg.MetadataValue.md(MemoryFiles(ws).read_review() or "_no REVIEW.md_"),
    })


class MemoryMdConfig(dg.Config):
    budget_tokens: int = 6000  # MEMORY.md is read at every session start: keep it short


@dg.asset(
    partitions_def=daily_partitions, group_name=GROUP, deps=[proposals], code_version="memory-md-1",
    kinds={"python"},
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
    today, now = review_clock(context)
    report = apply_review(ws, store, today=today, now=now, snapshot_day=day)
    for message in report.messages + report.errors:
        context.log.warning(message)
    files = MemoryFiles(ws)
    text, previous = files.read_memory(), files.previous_snapshot(day)
    lost = lines_lost(previous[1], text) if previous else []
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
        **{kind: len(report.ids(kind)) for kind in ("approved", "rejected", "expired", "edited")},
        "promoted_now": md_list(report.promoted), "promoted_total": len(promoted_ids(text)),
        "memory_tokens": tokens, "snapshot": dg.MetadataValue.path(str(files.snapshot_path(day))),
        "memory_md": dg.MetadataValue.md(text or "_MEMORY.md is empty_"),
        "review_md": dg.MetadataValue.md(files.read_review() or "_no REVIEW.md_"),
    })
