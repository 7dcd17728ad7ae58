"""The offline provider: deterministic extractors chosen by task name, no network."""

from __future__ import annotations

from collections.abc import Callable

from memory_pipeline.errors import LLMError
from memory_pipeline.resources.llm.base import LLMResponse
from memory_pipeline.stages.friction.wording import word_fixes_offline
from memory_pipeline.stages.ledger.event_typing import type_facts_offline
from memory_pipeline.stages.offline.observer import observe_offline
from memory_pipeline.stages.offline.reflector import reflect_offline
from memory_pipeline.stages.recall.rewrite import rewrite_offline
from memory_pipeline.stages.tokens import estimate_tokens

Extractor = Callable[[str, str], str]  # (system, prompt) -> answer text

# task -> the offline extractor that answers it.
OFFLINE_EXTRACTORS: dict[str, Extractor] = {
    "observer": observe_offline,
    "reflector": reflect_offline,
    "rewrite": rewrite_offline,
    "friction": word_fixes_offline,
    "ledger": type_facts_offline,
}


class OfflineProvider:
    """Answers each task with a registered pure function; token counts are estimates.

    Not cached by LLMClient: answering is cheap, and a cache would hide extractor changes.
    """

    name = "offline"
    cacheable = False

    def __init__(self) -> None:
        self.extractors: dict[str, Extractor] = {}

    def register(self, task: str, extractor: Extractor) -> None:
        self.extractors[task] = extractor

    def complete(self, *, task: str, model: str, system: str, prompt: str, max_tokens: int) -> LLMResponse:
        extractor = self.extractors.get(task)
        if extractor is None:
            known = ", ".join(sorted(self.extractors)) or "none"
            raise LLMError(f"offline provider has no extractor for task {task!r} (registered: {known})")
        text = extractor(system, prompt)
        return LLMResponse(
            text=text,
            input_tokens=estimate_tokens(system) + estimate_tokens(prompt),
            output_tokens=estimate_tokens(text),
            model=model,
            provider=self.name,
        )


def default_offline_provider() -> OfflineProvider:
    """An OfflineProvider with every extractor in OFFLINE_EXTRACTORS."""
    provider = OfflineProvider()
    for task, extractor in OFFLINE_EXTRACTORS.items():
        provider.register(task, extractor)
    return provider
