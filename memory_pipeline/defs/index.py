"""The message_index asset: every user and assistant message of the day, searchable."""

import dagster as dg

from memory_pipeline.defs.observe import GROUP, sessions
from memory_pipeline.defs.metadata import index_result
from memory_pipeline.defs.partitions import daily_partitions
from memory_pipeline.defs.resources import EmbedderResource, VectorStoreResource, WorkspaceResource
from memory_pipeline.flows.index_messages import day_message_points, index_messages


@dg.asset(
    partitions_def=daily_partitions,
    group_name=GROUP,
    deps=[sessions],
    code_version="message-index-2",
    kinds={"qdrant"},
    check_specs=[dg.AssetCheckSpec("index_matches_messages", asset="message_index",
                                   description="The day's message point count equals its indexable messages.")],
    description="The temporal tier: each user and assistant message of the day's sessions (tool-only "
    "turns and compaction summaries left out) in Qdrant with dense + BM25 vectors, tier=messages, "
    "citing its transcript message id. Unchanged messages are not embedded again.",
)
def message_index(
    context: dg.AssetExecutionContext,
    workspace: WorkspaceResource,
    vector_store: VectorStoreResource,
    embedder: EmbedderResource,
) -> dg.MaterializeResult:
    day = context.partition_key
    model = embedder.get()
    store = vector_store.get_store(model.dimension)
    ws = workspace.get()
    stats = index_messages(store, model, day, day_message_points(ws, day), manifest_dir=ws.state / "index")
    return index_result(stats, "index_matches_messages", model.model_name)
