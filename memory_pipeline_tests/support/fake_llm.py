"""A provider that replays queued answers, for tests of anything that calls an LLM.

    provider = QueuedProvider()
    provider.enqueue('{"facts": []}')
    provider.enqueue(LLMTransientError("overloaded"))   # raised instead of answered
    client = LLMClient(provider, cache_dir=None, sleep=lambda _: None)
"""

from __future__ import annotations

from memory_pipeline.resources.llm import LLMResponse
from memory_pipeline.stages.tokens import estimate_tokens


class QueuedProvider:
    """Answers in the order enqueued; records every call; an empty queue fails the test."""

    def __init__(self, name: str = "fake"):
        self.name = name
        self.queue: list[str | BaseException] = []
        self.calls: list[dict[str, object]] = []

    def enqueue(self, *items: str | BaseException) -> "QueuedProvider":
        self.queue.extend(items)
        return self

    def complete(self, *, task: str, model: str, system: str, prompt: str, max_tokens: int) -> LLMResponse:
        self.calls.append({"task": task, "model": model, "system": system, "prompt": prompt, "max_tokens": max_tokens})
        if not self.queue:
            raise AssertionError(f"QueuedProvider: no queued answer left for call {len(self.calls)} (task {task!r})")
        item = self.queue.pop(0)
        if isinstance(item, BaseException):
            raise item
        return LLMResponse(
            text=item,
            input_tokens=estimate_tokens(system) + estimate_tokens(prompt),
            output_tokens=estimate_tokens(item),
            model=model,
            provider=self.name,
        )
