"""Query rewriting through the LLM provider (task "rewrite"); the client caches answers on disk."""

from __future__ import annotations

from memory_pipeline.config import Settings
from memory_pipeline.ports import Completer
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.recall.rewrite import parse_rewrite


def rewrite_model(settings: Settings) -> str:
    return "offline-extractive-1" if settings.llm_provider == "offline" else settings.observer_model


def rewrite_query(workspace: Workspace, settings: Settings, query: str, llm: Completer | None = None) -> str:
    """One search query for `query` (LLMError when the provider fails)."""
    if llm is None:
        from memory_pipeline.resources.llm import build_llm_client  # noqa: PLC0415 — the LLM SDKs, only to rewrite

        llm = build_llm_client(settings, workspace.state_path("llm_cache"), workspace.state_path("llm_budget"))
    system, prompt = load_prompt("rewrite").render(query=query)
    value, _ = llm.complete(task="rewrite", model=rewrite_model(settings), system=system, prompt=prompt,
                            max_tokens=200, validate=parse_rewrite)
    return value
