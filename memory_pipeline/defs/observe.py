"""The observe stage's assets: sessions → observations (daily partitions)."""

import json
from collections import Counter

import dagster as dg

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.defs.asset_args import AssetArgs
from memory_pipeline.defs.automation import NEW_CODE_VERSION
from memory_pipeline.defs.metadata import md_list
from memory_pipeline.defs.resources import LLMResource, RedisResource, WorkspaceResource
from memory_pipeline.errors import LLMError, ServiceError
from memory_pipeline.flows.observe import collect_sessions, observe_day
from memory_pipeline.models import content_hash
from memory_pipeline.resources.files.daily_log import DailyLog
from memory_pipeline.stages.events import observe_skip_reason
from memory_pipeline.stages.invariants import duplicate_ids, facts_without_source
from memory_pipeline.stages.observe.session import MAX_TRANSCRIPT_CHARS

GROUP = "ingest"
REDIS_RETRIES = 3
# Observe before indexing: in a run's step order (in-process executor) `observations` comes before the
# index steps that are ready at the same time, so the daily log and the hot list are written first.
FIRST_IN_RUN = {"dagster/priority": "10"}


TRANSCRIPTS_DESCRIPTION = (
    "The agent transcripts behind each accepted event (hooks, `emit`, `import`): the head of the lineage. "
    "Written outside Dagster; each accepted event is recorded as a materialization of its day with the "
    "transcript path, session, trigger and message count.")

SESSIONS_SPEC = AssetArgs(
    group_name=GROUP, deps=["transcripts"],
    kinds={"python"},
    description="Agent sessions captured on the day: each accepted event's transcript window, "
    "parsed (Claude Code, pi, Codex or text) and redacted, stored under `sessions/YYYY-MM-DD/`. "
    "Every session's messages are indexed; a window that shows too little work (stages/windows.py) is not "
    "observed (`indexed, not observed` in the table).",
)


def sessions(context: dg.AssetExecutionContext, workspace: WorkspaceResource) -> dg.MaterializeResult:
    records = collect_sessions(workspace.get(), context.partition_key)
    ok = [(r.event, read) for r in records if (read := r.transcript) is not None]
    failed = {r.event.data.dedupe_key[:12]: r.error for r in records if r.error}
    for key, reason in failed.items():
        context.log.warning(f"session {key}: {reason}")
    skipped = {event.data.dedupe_key: observe_skip_reason(event) for event, _ in ok}
    rows = "\n".join(
        f"| {event.data.session_id} | {event.data.trigger} | {len(transcript.messages)} | "
        f"{transcript.format} | {skipped[event.data.dedupe_key] or 'observed'} |" for event, transcript in ok
    )
    return dg.MaterializeResult(metadata={
        "sessions": len(ok),
        "messages": sum(len(transcript.messages) for _, transcript in ok),
        "user_messages": sum(transcript.user_message_count for _, transcript in ok),
        "indexed_not_observed": sum(1 for reason in skipped.values() if reason),
        "failed": len(failed),
        "failures": md_list(failed),
        "sessions_table": dg.MetadataValue.md(
            "| session | trigger | messages | format | memory |\n|---|---|---|---|---|\n" + rows
            if rows else "_no sessions_"
        ),
    })


OBSERVATIONS_SPEC = AssetArgs(
    group_name=GROUP, automation_condition=NEW_CODE_VERSION,
    deps=["sessions"],
    op_tags=FIRST_IN_RUN,
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
    prompt, model = llm.prompt("observer"), llm.model_for("observe")
    try:
        result = observe_day(ws, day, llm=llm.get_client(), prompt=prompt, model=model,
                             redis_store=redis_store, redis_error=redis_error, settings=workspace.settings)
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
    version = observed_data_version(result.observations)
    for key, unread in result.unread.items():  # the Observer reads a window's last MAX_TRANSCRIPT_CHARS only
        context.log.warning(f"{key}: the Observer read the last {MAX_TRANSCRIPT_CHARS:,} characters of the window; "
                            f"the {unread:,} before them were not observed (they stay indexed for recall)")
    return dg.MaterializeResult(check_results=checks, data_version=version, metadata={
        "observations": len(result.observations),
        "observed_now": result.observed,
        "filed_under_project": result.migrated,  # older observations given their project this run
        "projects": md_list(Counter(o.project or "(none)" for o in result.observations)),
        "reused": result.reused,
        "indexed_not_observed": len(result.not_observed),
        "lock_waits": len(result.in_flight),  # events another live run held the observe lock for
        "facts_high": priorities["high"],
        "facts_medium": priorities["medium"],
        "facts_low": priorities["low"],
        "tokens_in": result.usage.input_tokens,
        "tokens_out": result.usage.output_tokens,
        "llm_calls": result.usage.calls,
        "cache_hits": result.usage.cache_hits,
        "failed": md_list(result.failed),
        "not_read_by_observer": md_list(result.unread),  # window characters over the Observer's input limit
        "prompt_sha": prompt.sha256[:12],
        "model": model,
        "daily_log": dg.MetadataValue.path(str(ws.daily_log(day))),
        "preview": dg.MetadataValue.md(DailyLog(ws).read(day)[-6000:] or "_empty_"),
    })


def observed_data_version(observations) -> dg.DataVersion:
    """The day's observations by content (ids, facts, code version): an unchanged re-run keeps it, a
    new or re-observed session changes it and marks the reflections that read the day stale."""
    keys = sorted((o.id, o.code_version, sorted(f.id for f in o.facts)) for o in observations)
    return dg.DataVersion(content_hash(json.dumps(keys))[:16])


def observe_assets(partitions: dg.PartitionsDefinition, settings: Settings) -> list:
    """`transcripts` (external), `sessions` and `observations`; the Observer's code version is its
    prompt's hash and model."""
    return [
        dg.AssetSpec("transcripts", partitions_def=partitions, group_name=GROUP, kinds={"file"},
                     description=TRANSCRIPTS_DESCRIPTION),
        dg.asset(partitions_def=partitions, code_version=pipeline.code_version("sessions", settings),
                 **SESSIONS_SPEC)(sessions),
        dg.asset(partitions_def=partitions, code_version=pipeline.code_version("observe", settings),
                 **OBSERVATIONS_SPEC)(observations),
    ]
