"""What the UI shows about MEMORY.md and the proposals, and recording a MEMORY.md change made
outside a run (a `review` command) as a `memory_md` materialization.

The `proposals` and `memory_md` assets and the CLI build their metadata here, so a change made
by any surface reads the same in the UI: the MEMORY.md preview, the ids promoted, and for each
item its sources (observation, fact and session ids, as ids and as a markdown table).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import dagster as dg

from memory_pipeline.models import Proposal, SessionEvent
from memory_pipeline.resources.files.memory_files import MemoryFiles, sha256_text
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.review.memory_md import promoted_ids

if TYPE_CHECKING:
    from memory_pipeline.flows.review.decisions import ReviewReport
    from memory_pipeline.resources.redis.proposals import ProposalStore

MEMORY_ASSET = "memory_md"
TRANSCRIPTS_ASSET = "transcripts"
CODE_VERSION_TAG = "dagster/code_version"  # what Dagster compares with the asset's code_version
DATA_VERSION_TAG = "dagster/data_version"


def _short(ids: list[str], keep: int = 3) -> str:
    shown = ", ".join(f"`{i[:8]}`" for i in ids[:keep])
    return shown + (f" +{len(ids) - keep}" if len(ids) > keep else "") if ids else "—"


def sources_table(proposals: list[Proposal]) -> str:
    """One row per proposal: what it says and where it came from (`memory-pipeline trace ID` for all of it)."""
    if not proposals:
        return "_none_"
    rows = ["| proposal | status | about | text | observations | facts | sessions |", "|---|---|---|---|---|---|---|"]
    for p in proposals:
        text = p.text if len(p.text) <= 80 else p.text[:79] + "…"
        rows.append(f"| `{p.id}` | {p.status} | {p.created} | {text.replace('|', '/')} | "
                    f"{_short(p.source_observation_ids)} | {_short(p.source_fact_ids)} | {_short(p.sessions, 2)} |")
    return "\n".join(rows)


def sources_json(proposals: list[Proposal]) -> dict[str, dict]:
    return {p.id: {"observations": p.source_observation_ids, "facts": p.source_fact_ids, "sessions": p.sessions}
            for p in proposals}


def proposal_sources_metadata(staged: list[Proposal]) -> dict[str, dg.MetadataValue]:
    """The `proposals` asset's per-item sources."""
    return {"sources": dg.MetadataValue.md(sources_table(staged)),
            "source_ids": dg.MetadataValue.json(sources_json(staged))}


def memory_md_metadata(workspace: Workspace, store: ProposalStore, report: ReviewReport) -> dict:
    """MEMORY.md's preview, the decisions just made, and the sources of every promoted line."""
    files = MemoryFiles(workspace)
    text = files.read_memory()
    present = promoted_ids(text)
    promoted = sorted((p for p in store.all().values() if p.id in present), key=lambda p: p.id)
    return {
        **{kind: len(report.ids(kind)) for kind in ("approved", "rejected", "expired", "edited")},
        "promoted_now": dg.MetadataValue.md("\n".join(f"- `{pid}`" for pid in report.promoted) or "_none_"),
        "promoted_ids": dg.MetadataValue.json(sorted(report.promoted)),
        "promoted_total": len(present),
        "memory_sha256": sha256_text(text)[:16],
        "memory_md": dg.MetadataValue.md(text or "_MEMORY.md is empty_"),
        "sources": dg.MetadataValue.md(sources_table(promoted)),
        "source_ids": dg.MetadataValue.json(sources_json(promoted)),
        "review_md": dg.MetadataValue.md(files.read_review() or "_no REVIEW.md_"),
    }


def record_memory_md_change(instance: dg.DagsterInstance, workspace: Workspace, store: ProposalStore,
                            report: ReviewReport, *, day: str, code_version: str, surface: str) -> None:
    """Record MEMORY.md as changed by `surface` (e.g. `cli:review approve`) as a runless
    materialization of the day's `memory_md` partition, so the UI shows what the file holds."""
    metadata = memory_md_metadata(workspace, store, report)
    metadata["changed_by"] = surface
    tags = {CODE_VERSION_TAG: code_version, DATA_VERSION_TAG: str(metadata["memory_sha256"])}
    instance.report_runless_asset_event(
        dg.AssetMaterialization(asset_key=MEMORY_ASSET, partition=day, metadata=metadata, tags=tags))


def transcript_materialization(event: SessionEvent) -> dg.AssetMaterialization:
    """An accepted event as a materialization of the external `transcripts` asset for its day."""
    data = event.data
    where = data.transcript.path if data.transcript else f"inline in events/{event.day}/{data.dedupe_key}.json"
    return dg.AssetMaterialization(asset_key=TRANSCRIPTS_ASSET, partition=event.day, metadata={
        "transcript": where, "format": data.transcript.format if data.transcript else "text",
        "session": data.session_id, "trigger": data.trigger, "messages": data.message_count,
        "user_messages": data.user_message_count, "captured_at": data.captured_at.isoformat(),
        "dedupe_key": data.dedupe_key,
    }, tags={DATA_VERSION_TAG: data.transcript.sha256[:16] if data.transcript else data.dedupe_key[:16]})


def record_transcripts(instance: dg.DagsterInstance, events: list[SessionEvent]) -> None:
    """Accepted events taken outside the sensor (`ingest`, `import`) recorded on `transcripts`."""
    for event in events:
        instance.report_runless_asset_event(transcript_materialization(event))
