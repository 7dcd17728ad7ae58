"""The index stage's assets: a day's observations and a day's messages in the vector store.

One factory builds both: they differ only in what they read (the day's observation facts, or the
day's transcript messages) and in the tier their points carry.
"""

from collections.abc import Callable
from typing import TypedDict

import dagster as dg

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.defs.automation import FOLLOW_UPSTREAM_OR_NEW_CODE
from memory_pipeline.defs.metadata import index_result
from memory_pipeline.defs.observe import GROUP
from memory_pipeline.defs.resources import EmbedderResource, VectorStoreResource, WorkspaceResource
from memory_pipeline.flows.index.messages import index_message_day
from memory_pipeline.flows.index.observations import index_observation_day

# Steps that write the vector store share a Dagster pool: an instance that limits it (deploy/dagster.yaml)
# runs one of them at a time across concurrent runs; unlimited on the default instance, where the
# local store's file lock serializes them.
STORE_POOL = "vector_store"

class IndexSpec(TypedDict):
    upstream: str
    index_day: Callable
    check: str
    check_description: str
    description: str


INDEXES: dict[str, IndexSpec] = {
    "observation_index": IndexSpec(
        upstream="observations", index_day=index_observation_day, check="index_matches_observations",
        check_description="The day's point count equals its facts and narratives.",
        description="Observation facts and segment narratives in Qdrant (dense + BM25 sparse vectors), "
        "one point per fact, ids derived from content; unchanged content is not embedded again."),
    "message_index": IndexSpec(
        upstream="sessions", index_day=index_message_day, check="index_matches_messages",
        check_description="The day's message point count equals its indexable messages.",
        description="The temporal tier: each user and assistant message of the day's sessions (tool-only "
        "turns and compaction summaries left out) in Qdrant with dense + BM25 vectors, tier=messages, "
        "citing its transcript message id. Unchanged messages are not embedded again."),
}


def index_asset(name: str, partitions: dg.PartitionsDefinition, settings: Settings, *, upstream: str,
                index_day: Callable, check: str, check_description: str, description: str) -> dg.AssetsDefinition:
    @dg.asset(
        name=name, partitions_def=partitions, group_name=GROUP, deps=[upstream], kinds={"qdrant"}, pool=STORE_POOL,
        code_version=pipeline.code_version(name, settings), description=description,
        automation_condition=FOLLOW_UPSTREAM_OR_NEW_CODE,
        check_specs=[dg.AssetCheckSpec(check, asset=name, description=check_description)],
    )
    def _index(context: dg.AssetExecutionContext, workspace: WorkspaceResource, vector_store: VectorStoreResource,
               embedder: EmbedderResource) -> dg.MaterializeResult:
        model = embedder.get()
        stats = index_day(workspace.get(), workspace.settings, vector_store.get_store(model.dimension), model,
                          context.partition_key)
        return index_result(stats, check, model.model_name)

    return _index


def index_assets(partitions: dg.PartitionsDefinition, settings: Settings) -> list[dg.AssetsDefinition]:
    return [index_asset(name, partitions, settings, **spec) for name, spec in INDEXES.items()]
