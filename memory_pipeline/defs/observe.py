"""Assets of the ingest stage: sessions → observations → observation_index (daily partitions)."""


from collections import Counter

import dagster as dg

from memory_pipeline.defs.metadata import index_result, md_list
from memory_pipeline.defs.partitions import daily_partitions
from memory_pipeline.defs.resources import (
    EmbedderResource,
    LLMResource,
    RedisResource,
    VectorStoreResource,
    WorkspaceResource,
)
from memory_pipeline.errors import LLMError, ServiceError
from memory_pipeline.flows.index import index_observations
from memory_pipeline.flows.observe import collect_sessions, load_observations, observe_day
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.daily_log import DailyLog
from memory_pipeline.stages.invariants import duplicate_ids, facts_without_source

GROUP = "ingest"
REDIS_RETRIES = 3


def observer_code_version() -> str:
    return load_prompt("observer").code_version(LLMResource(workspace=WorkspaceResource()).model_for("observer"))


@dg.asset(
    partitions_def=daily_partitions,
    group_name=GROUP,
    code_version="sessions-1",
    kinds={"python"},
    description="Agent sessions captured on the day: each accepted event's transcript window, "
    "parsed (Claude Code, pi, Codex or text) and redacted, stored under `sessions/YYYY-MM-DD/`.",
)
def sessions(context: dg.AssetExecutionContext, workspace: WorkspaceResource) -> dg.MaterializeResult:
    records = collect_sessions(workspace.get(), context.partition_key)
    ok = [r for r in records if r.transcript is not None]
    failed = {r.event.data.dedupe_key[:12]: r.error for r in records if r.error}
    for key, reason in failed.items():
        context.log.warning(f"session {key}: {reason}")
    rows = "\n".join(
        f"| {r.event.data.session_id} | {r.event.data.trigger} | {len(r.transcript.messages)} | "
        f"{r.transcript.format} |" for r in ok
    )
    return dg.MaterializeResult(metadata={
        "sessions": len(ok),
        "messages": sum(len(r.transcript.messages) for r in ok),
        "user_messages": sum(r.transcript.user_message_count for r in ok),
        "failed": len(failed),
        "failures": md_list(failed),
        "sessions_table": dg.MetadataValue.md(
            "| session | trigger | messages | format |\n|---|---|---|---|\n" + rows if rows else "_no sessions_"
        ),
    })


@dg.asset(
    partitions_def=daily_partitions,
    group_name=GROUP,
    deps=[sessions],
    code_version=observer_code_version(),
    kinds={"python", "redis"},
    check_specs=[
        dg.AssetCheckSpec("unique_ids", asset="observations", description="Observation and fact ids are unique."),
        dg.AssetCheckSpec("facts_cite_sources", asset="observations",
                          description="Every fact cites at least one transcript message."),
    ],
    description="Observer output per session: segments with a narrative and 🔴/🟡/🟢 facts that cite "
    "their transcript messages. Written to `observations/YYYY-MM-DD/`, the daily log and the Redis hot list. "
    "The code version is the hash of prompts/observer.md and the model.",
)
def observations(
    context: dg.AssetExecutionContext, workspace: WorkspaceResource, llm: LLMResource, redis: RedisResource
) -> dg.MaterializeResult:
    ws, day = workspace.get(), context.partition_key
    redis_store, redis_error = None, None
    try:
        redis_store = redis.get_store()
        redis_store.ping()
    except ServiceError as exc:
        redis_error = str(exc)
    prompt, model = load_prompt("observer"), llm.model_for("observer")
    try:
        result = observe_day(ws, day, llm=llm.get_client(), prompt=prompt, model=model,
                             redis_store=redis_store, redis_error=redis_error)
    except LLMError as exc:
        raise dg.Failure(f"Observer failed: {exc}") from exc
    if result.redis_error:
        failure = dg.Failure(f"Redis unreachable; the daily log was written as the fallback: {result.redis_error}")
        raise dg.RetryRequested(max_retries=REDIS_RETRIES, seconds_to_wait=redis.retry_wait()) from failure
    priorities = Counter(f.priority for o in result.observations for f in o.facts)
    duplicates, unsourced = duplicate_ids(result.observations), facts_without_source(result.observations)
    checks = [
        dg.AssetCheckResult(check_name="unique_ids", passed=not duplicates,
                            metadata={"duplicates": dg.MetadataValue.json(duplicates[:20])}),
        dg.AssetCheckResult(check_name="facts_cite_sources", passed=not unsourced,
                            metadata={"unsourced_facts": len(unsourced)}),
    ]
    return dg.MaterializeResult(check_results=checks, metadata={
        "observations": len(result.observations),
        "observed_now": result.observed,
        "reused": result.reused,
        "lock_waits": len(result.in_flight),  # events another live run held the observe lock for
        "facts_high": priorities["high"],
        "facts_medium": priorities["medium"],
        "facts_low": priorities["low"],
        "tokens_in": result.usage.input_tokens,
        "tokens_out": result.usage.output_tokens,
        "llm_calls": result.usage.calls,
        "cache_hits": result.usage.cache_hits,
        "failed": md_list(result.failed),
        "prompt_sha": prompt.sha256[:12],
        "model": model,
        "daily_log": dg.MetadataValue.path(str(ws.daily_log(day))),
        "preview": dg.MetadataValue.md(DailyLog(ws).read(day)[-6000:] or "_empty_"),
    })


@dg.asset(
    partitions_def=daily_partitions,
    group_name=GROUP,
    deps=[observations],
    code_version="index-1",
    kinds={"qdrant"},
    check_specs=[dg.AssetCheckSpec("index_matches_observations", asset="observation_index",
                                   description="The day's point count equals its facts and narratives.")],
    description="Observation facts and segment narratives in Qdrant (dense + BM25 sparse vectors), "
    "one point per fact, ids derived from content; unchanged content is not embedded again.",
)
def observation_index(
    context: dg.AssetExecutionContext,
    workspace: WorkspaceResource,
    vector_store: VectorStoreResource,
    embedder: EmbedderResource,
) -> dg.MaterializeResult:
    day = context.partition_key
    model = embedder.get()
    store = vector_store.get_store(model.dimension)
    ws = workspace.get()
    stats = index_observations(store, model, day, load_observations(ws, day), manifest_dir=ws.state / "index")
    return index_result(stats, "index_matches_observations", model.model_name)
