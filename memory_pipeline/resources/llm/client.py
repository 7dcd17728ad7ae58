"""The one LLM wrapper: cache, retries with backoff, one validation re-ask, token accounting."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, overload

from memory_pipeline.errors import LLMError
from memory_pipeline.models import LLMUsage
from memory_pipeline.resources.llm.base import LLMProvider, LLMResponse, LLMTransientError
from memory_pipeline.resources.llm.cache import ResponseCache, cache_key

T = TypeVar("T")

REASK_NOTE = (
    "\n\nYour previous answer could not be used: {error}. "
    "Answer again, following the required output format exactly."
)
DEFAULT_MAX_OUTPUT_CHARS = 200_000


class LLMClient:
    """Calls a provider and returns (validated value, usage), or raises a typed LLMError.

    Usage counts `calls` (provider requests that answered) and their tokens; a cache hit adds
    `cache_hits=1` with the stored answer's tokens and no call. `total_usage` sums every call.
    """

    def __init__(
        self,
        provider: LLMProvider,
        cache_dir: Path | None,
        retries: int = 3,
        backoff_seconds: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
        max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
    ):
        self.provider = provider
        cacheable = getattr(provider, "cacheable", True)
        self.cache = ResponseCache(cache_dir) if cache_dir is not None and cacheable else None
        self.retries = retries
        self.backoff_seconds = backoff_seconds
        self.sleep = sleep
        self.max_output_chars = max_output_chars
        self.total_usage = LLMUsage()

    @overload
    def complete(self, *, task: str, model: str, system: str, prompt: str, max_tokens: int = 4096,
                 validate: Callable[[str], T]) -> tuple[T, LLMUsage]: ...

    @overload
    def complete(self, *, task: str, model: str, system: str, prompt: str, max_tokens: int = 4096,
                 validate: None = None) -> tuple[str, LLMUsage]: ...

    def complete(
        self,
        *,
        task: str,
        model: str,
        system: str,
        prompt: str,
        max_tokens: int = 4096,
        validate: Callable[[str], T] | None = None,
    ) -> tuple[T | str, LLMUsage]:
        key = cache_key(self.provider.name, model, system, prompt)
        cached = self.cache.load(key) if self.cache is not None else None
        if cached is not None:
            try:
                value = self._check(cached.text, validate)
            except ValueError:
                pass  # the validator changed since this was stored: ask again
            else:
                usage = LLMUsage(input_tokens=cached.input_tokens, output_tokens=cached.output_tokens, cache_hits=1)
                self.total_usage += usage
                return value, usage

        usage = LLMUsage()
        try:
            value, response = self._ask_and_validate(task, model, system, prompt, max_tokens, validate, usage)
        finally:
            self.total_usage += usage
        if self.cache is not None:
            self.cache.store(key, response)
        return value, usage

    def _ask_and_validate(
        self,
        task: str,
        model: str,
        system: str,
        prompt: str,
        max_tokens: int,
        validate: Callable[[str], T] | None,
        usage: LLMUsage,
    ) -> tuple[T | str, LLMResponse]:
        """Ask; if the answer does not validate, ask once more with a note. Adds to `usage` in place."""
        def ask(text: str) -> LLMResponse:
            return self._call_with_retries(task=task, model=model, system=system, prompt=text, max_tokens=max_tokens)

        response = ask(prompt)
        _add(usage, response)
        try:
            return self._check(response.text, validate), response
        except ValueError as first_error:
            note = REASK_NOTE.format(error=_one_line(first_error).rstrip("."))
            response = ask(prompt + note)
            _add(usage, response)
            try:
                return self._check(response.text, validate), response
            except ValueError as second_error:
                raise LLMError(
                    f"{self.provider.name} {model} ({task}): answer failed validation twice: "
                    f"{_one_line(second_error)}"
                ) from second_error

    def _check(self, text: str, validate: Callable[[str], T] | None) -> T | str:
        """Validate an answer; raises ValueError when it cannot be used."""
        if len(text) > self.max_output_chars:
            raise ValueError(f"the answer has {len(text)} characters, over the limit of {self.max_output_chars}")
        return validate(text) if validate is not None else text

    def _call_with_retries(self, *, task: str, model: str, system: str, prompt: str, max_tokens: int) -> LLMResponse:
        attempts = self.retries + 1
        for attempt in range(attempts):
            try:
                return self.provider.complete(
                    task=task, model=model, system=system, prompt=prompt, max_tokens=max_tokens
                )
            except LLMTransientError as error:
                last_error = error
                if attempt + 1 < attempts:
                    self.sleep(self.backoff_seconds * 2**attempt)
        raise LLMError(
            f"{self.provider.name} {model} ({task}): gave up after {attempts} attempts: {last_error}"
        ) from last_error


def _add(usage: LLMUsage, response: LLMResponse) -> None:
    usage.input_tokens += response.input_tokens
    usage.output_tokens += response.output_tokens
    usage.calls += 1


def _one_line(error: Exception, limit: int = 1000) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= limit else text[:limit] + "…"
