"""Dagster resources: thin configurable wrappers around memory_pipeline.resources, bound once.

`build_resources(settings)` hands each one the `Settings` built when the definitions load (a
resource dependency, not run config: the UI never shows a key). An empty field (`root`, `url`,
`model_name`, `provider`) takes its value from those settings. (No `from __future__ import annotations` here: Dagster reads
`dg.ResourceDependency[Settings]` from the live annotation.)
"""

from typing import TYPE_CHECKING

import dagster as dg

from memory_pipeline import pipeline
from memory_pipeline.config import Settings
from memory_pipeline.prompts import Prompt
from memory_pipeline.resources.embedding.onnx_embedder import embedder_for
from memory_pipeline.resources.redis.embedded_redis import EmbeddedRedis
from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis
from memory_pipeline.resources.vectors.stores import workspace_store
from memory_pipeline.resources.workspace import Workspace

if TYPE_CHECKING:
    from memory_pipeline.ports import Embedder, ShardedIndex
    from memory_pipeline.resources.llm.client import LLMClient
    from memory_pipeline.resources.redis.redis_store import RedisStore


class WorkspaceResource(dg.ConfigurableResource):
    """The workspace folder (MEMORY_WORKSPACE), and the settings every other resource reads."""

    settings: dg.ResourceDependency[Settings]
    root: str = ""

    def get(self) -> Workspace:
        return Workspace(self.root or self.settings.workspace).create()


class RedisResource(dg.ConfigurableResource):
    """Redis: REDIS_URL, or a private redis-server on a unix socket in the workspace."""

    workspace: WorkspaceResource
    url: str = ""
    def get_store(self) -> "RedisStore":
        settings = self.workspace.settings
        client = connect_redis(self.url or settings.redis_url, self.workspace.get().state, settings.redis_idle_timeout,
                               settings.runtime_dir)
        return RedisStore(client)

    def running(self) -> bool:
        """A server to read without starting one: REDIS_URL, or the embedded redis-server running now.
        A sensor that only reads the hot list asks first, so an idle daemon does not keep the embedded
        server up (its watchdog stops it after MEMORY_REDIS_IDLE_TIMEOUT without a command)."""
        settings = self.workspace.settings
        if self.url or settings.redis_url:
            return True
        return bool(EmbeddedRedis(self.workspace.get().state, settings.runtime_dir).server_pids())

    def retry_wait(self) -> float:
        """Seconds before a step that found Redis down is retried (MEMORY_REDIS_RETRY_SECONDS)."""
        return self.workspace.settings.redis_retry_seconds


class VectorStoreResource(dg.ConfigurableResource):
    """Qdrant: QDRANT_URL, or local mode under the workspace (one opener at a time)."""

    workspace: WorkspaceResource
    url: str = ""
    collection: str = "memory"

    def get_store(self, dimension: int) -> "ShardedIndex":
        settings = self.workspace.settings
        return workspace_store(self.workspace.get().state, self.url or settings.qdrant_url, dimension=dimension,
                               api_key=settings.qdrant_api_key, collection=self.collection,
                               lock_timeout=settings.qdrant_lock_timeout)


class EmbedderResource(dg.ConfigurableResource):
    """The embedding model (MEMORY_EMBEDDING_MODEL), loaded once per process: on ONNX Runtime on
    CPU, with torch on a GPU (resources/embedding/onnx_embedder.py)."""

    settings: dg.ResourceDependency[Settings]
    model_name: str = ""

    def get(self) -> "Embedder":
        return embedder_for(self.model_name or self.settings.embedding_model, settings=self.settings)


class LLMResource(dg.ConfigurableResource):
    """The LLM provider the settings chose (offline unless `provider set` or MEMORY_LLM_PROVIDER names another)."""

    workspace: WorkspaceResource
    provider: str = ""

    def settings(self) -> Settings:
        settings = self.workspace.settings
        return settings.replace(llm_provider=self.provider) if self.provider else settings

    def model_for(self, task: str) -> str:
        return pipeline.model_for(self.settings(), task)

    def prompt(self, name: str) -> Prompt:
        return pipeline.stage_prompt(name, self.settings())

    def get_client(self) -> "LLMClient":
        from memory_pipeline.resources.llm import build_llm_client  # noqa: PLC0415 — the LLM SDKs load when a step asks for a client

        workspace = self.workspace.get()
        return build_llm_client(self.settings(), workspace.state_path("llm_cache"), workspace.state_path("llm_budget"))


def build_resources(settings: Settings) -> dict[str, object]:
    workspace = WorkspaceResource(settings=settings)
    return {
        "workspace": workspace,
        "redis": RedisResource(workspace=workspace),
        "vector_store": VectorStoreResource(workspace=workspace),
        "embedder": EmbedderResource(settings=settings),
        "llm": LLMResource(workspace=workspace),
    }
