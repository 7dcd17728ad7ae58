"""The LLM layer: providers (Anthropic, offline), one client that owns retries and the cache.

Stages never import this; assets call `LLMClient.complete` and pass the text to a stage parser.
"""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError
from memory_pipeline.resources.llm.anthropic_provider import AnthropicProvider
from memory_pipeline.resources.llm.base import LLMProvider, LLMResponse, LLMTransientError
from memory_pipeline.resources.llm.cache import ResponseCache, cache_key
from memory_pipeline.resources.llm.client import REASK_NOTE, LLMClient
from memory_pipeline.resources.llm.offline import OFFLINE_EXTRACTORS, OfflineProvider, default_offline_provider

__all__ = [
    "OFFLINE_EXTRACTORS",
    "REASK_NOTE",
    "AnthropicProvider",
    "LLMClient",
    "LLMProvider",
    "LLMResponse",
    "LLMTransientError",
    "OfflineProvider",
    "ResponseCache",
    "build_llm_client",
    "cache_key",
    "default_offline_provider",
]


def build_llm_client(settings: Settings, cache_dir: Path | None) -> LLMClient:
    """The client the settings ask for: MEMORY_LLM_PROVIDER is "offline" or "anthropic"."""
    provider_name = (settings.llm_provider or "").strip().lower()
    if provider_name == "offline":
        return LLMClient(default_offline_provider(), cache_dir)
    if provider_name == "anthropic":
        if not settings.anthropic_api_key:
            raise BadInputError(
                "MEMORY_LLM_PROVIDER=anthropic needs ANTHROPIC_API_KEY; set it, "
                "or set MEMORY_LLM_PROVIDER=offline to run without a model"
            )
        provider = AnthropicProvider(settings.anthropic_api_key, settings.anthropic_base_url,
                                     settings.llm_timeout_seconds)
        return LLMClient(provider, cache_dir)
    raise BadInputError(
        f"unknown LLM provider {settings.llm_provider!r} (MEMORY_LLM_PROVIDER): use 'offline' or 'anthropic'"
    )
