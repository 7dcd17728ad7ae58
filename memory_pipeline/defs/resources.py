"""Dagster resources: thin configurable wrappers around memory_pipeline.resources, bound once.

Empty settings fall back to the environment (MEMORY_WORKSPACE, REDIS_URL, QDRANT_URL, ...),
read when a run starts, never at import time.
"""

from __future__ import annotations

import os

import dagster as dg

from memory_pipeline.config import Settings
from memory_pipeline.resources.workspace import Workspace


def _settings() -> Settings:
    return Settings.from_env()


class WorkspaceResource(dg.ConfigurableResource):
    """The workspace folder (MEMORY_WORKSPACE)."""

    root: str = ""

    def get(self) -> Workspace:
        return Workspace(self.root or _settings().workspace).create()


class RedisResource(dg.ConfigurableResource):
    """Redis: REDIS_URL, or a private redis-server on a unix socket in the workspace."""

    workspace: WorkspaceResource
    url: str = ""
    retry_seconds: float = 30.0  # wait before a run retries a step that found Redis down

    def get_store(self):
        from memory_pipeline.resources.redis_store import RedisStore, connect_redis

        client = connect_redis(self.url or _settings().redis_url, self.workspace.get().state)
        return RedisStore(client)

    def retry_wait(self) -> float:
        """Seconds before a step that found Redis down is retried (MEMORY_REDIS_RETRY_SECONDS overrides)."""
        return float(os.environ.get("MEMORY_REDIS_RETRY_SECONDS") or self.retry_seconds)


class VectorStoreResource(dg.ConfigurableResource):
    """Qdrant: QDRANT_URL, or local mode under the workspace (one opener at a time)."""

    workspace: WorkspaceResource
    url: str = ""
    collection: str = "memory"

    def get_store(self, dimension: int):
        from memory_pipeline.resources.vector_shards import workspace_store

        settings = _settings()
        return workspace_store(self.workspace.get().state, self.url or settings.qdrant_url, dimension=dimension,
                               api_key=settings.qdrant_api_key, collection=self.collection,
                               lock_timeout=float(os.environ.get("MEMORY_QDRANT_LOCK_TIMEOUT") or 60.0))


class EmbedderResource(dg.ConfigurableResource):
    """A sentence-transformers model (MEMORY_EMBEDDING_MODEL), loaded once per process."""

    model_name: str = ""

    def get(self):
        from memory_pipeline.resources.embedder import get_embedder

        return get_embedder(self.model_name or _settings().embedding_model)


class LLMResource(dg.ConfigurableResource):
    """The LLM provider: offline (default without a key) or anthropic (ANTHROPIC_API_KEY)."""

    workspace: WorkspaceResource
    provider: str = ""

    def settings(self) -> Settings:
        settings = _settings()
        if self.provider:
            settings = Settings(**{**settings.__dict__, "llm_provider": self.provider})
        return settings

    def model_for(self, task: str) -> str:
        settings = self.settings()
        if settings.llm_provider == "offline":
            return "offline-extractive-1"
        return settings.reflector_model if task == "reflector" else settings.observer_model

    def get_client(self):
        from memory_pipeline.resources.llm import build_llm_client

        return build_llm_client(self.settings(), self.workspace.get().state / "llm-cache")


def build_resources() -> dict[str, object]:
    workspace = WorkspaceResource()
    return {
        "workspace": workspace,
        "redis": RedisResource(workspace=workspace),
        "vector_store": VectorStoreResource(workspace=workspace),
        "embedder": EmbedderResource(),
        "llm": LLMResource(workspace=workspace),
    }
