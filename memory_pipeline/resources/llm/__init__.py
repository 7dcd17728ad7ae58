"""The LLM layer: providers (Anthropic, Claude Code, Codex, OpenAI-compatible, offline), one client that owns retries and the cache.

Stages never import this; assets call `LLMClient.complete` and pass the text to a stage parser.
"""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.errors import BadInputError
from memory_pipeline.resources.llm.anthropic_provider import AnthropicProvider
from memory_pipeline.resources.llm.base import LLMProvider, LLMResponse, LLMTransientError
from memory_pipeline.resources.llm.budget import BudgetedProvider, BudgetExceededError, TokenBudget
from memory_pipeline.resources.llm.cache import ResponseCache, cache_key
from memory_pipeline.resources.llm.claude_code_provider import ClaudeCodeProvider
from memory_pipeline.resources.llm.client import REASK_NOTE, LLMClient
from memory_pipeline.resources.llm.codex_provider import CodexProvider
from memory_pipeline.resources.llm.offline import OFFLINE_EXTRACTORS, OfflineProvider, default_offline_provider
from memory_pipeline.resources.llm.openai_compatible_provider import OpenAICompatibleProvider
from memory_pipeline.resources.workspace import Workspace

__all__ = [
    "OFFLINE_EXTRACTORS",
    "REASK_NOTE",
    "AnthropicProvider",
    "BudgetExceededError",
    "ClaudeCodeProvider",
    "CodexProvider",
    "OpenAICompatibleProvider",
    "TokenBudget",
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


PROVIDERS = ("offline", "anthropic", "claude-code", "codex", "openai-compatible")


def build_llm_client(settings: Settings, cache_dir: Path | None, budget_path: Path | None = None) -> LLMClient:
    """The client MEMORY_LLM_PROVIDER asks for. A model provider's calls count against the daily
    token budget kept at `budget_path` (default: the workspace's `state/llm-budget.json`)."""
    provider_name = (settings.llm_provider or "").strip().lower()
    if provider_name == "offline":
        return LLMClient(default_offline_provider(), cache_dir)
    provider = model_provider(settings, provider_name)
    path = budget_path or Workspace(settings.workspace).state_path("llm_budget")
    return LLMClient(BudgetedProvider(provider, TokenBudget(path, settings.llm_daily_tokens)), cache_dir)


def model_provider(settings: Settings, provider_name: str) -> LLMProvider:
    timeout = settings.llm_timeout_seconds
    if provider_name == "anthropic":
        if not settings.anthropic_api_key:
            raise BadInputError(
                "MEMORY_LLM_PROVIDER=anthropic needs ANTHROPIC_API_KEY; set it, "
                "or set MEMORY_LLM_PROVIDER=offline to run without a model"
            )
        return AnthropicProvider(settings.anthropic_api_key, settings.anthropic_base_url, timeout)
    if provider_name == "claude-code":
        return ClaudeCodeProvider(settings.claude_command, timeout)
    if provider_name == "codex":
        return CodexProvider(settings.codex_command, timeout)
    if provider_name == "openai-compatible":
        if settings.observer_model.startswith("claude-") or settings.reflector_model.startswith("claude-"):
            raise BadInputError("MEMORY_LLM_PROVIDER=openai-compatible needs OBSERVER_MODEL and REFLECTOR_MODEL set "
                                f"to models {settings.openai_base_url} serves (e.g. qwen2.5:14b)")
        return OpenAICompatibleProvider(settings.openai_base_url, settings.openai_api_key, timeout)
    raise BadInputError(
        f"unknown LLM provider {settings.llm_provider!r} (MEMORY_LLM_PROVIDER): use one of {', '.join(PROVIDERS)}"
    )
