"""The Anthropic Messages API through the official SDK; SDK errors become project errors.

No `temperature` is sent: the installed SDK (2.x) speaks API version 2026-10-21, which removed
temperature/top_p/top_k (its `messages.create` no longer accepts them; the API answers 400).

The SDK is imported when a provider is made, not with this module: its import takes ~1.4 s (its pydantic
types), which every command that loads the LLM layer paid, `status` and the offline default included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory_pipeline.errors import LLMError
from memory_pipeline.resources.llm.base import LLMResponse, LLMTransientError

if TYPE_CHECKING:
    import anthropic

# 408 request timeout, 409 conflict, 429 rate limit; every 5xx (529 is "overloaded").
RETRYABLE_STATUS = frozenset({408, 409, 429})


class AnthropicProvider:
    """Calls `messages.create` once per `complete`; retries belong to LLMClient (SDK retries off)."""

    name = "anthropic"

    def __init__(self, api_key: str, base_url: str | None = None, timeout: float = 60.0):
        import anthropic

        self.client = anthropic.Anthropic(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0)

    def complete(self, *, task: str, model: str, system: str, prompt: str, max_tokens: int) -> LLMResponse:
        import anthropic

        try:
            message = self.client.messages.create(
                model=model,
                max_tokens=max_tokens,
                system=system,
                messages=[{"role": "user", "content": prompt}],
            )
        except anthropic.AnthropicError as error:
            raise translate_error(error, task=task, model=model) from error
        text = "".join(block.text for block in message.content if isinstance(block, anthropic.types.TextBlock))
        return LLMResponse(
            text=text,
            input_tokens=message.usage.input_tokens,
            output_tokens=message.usage.output_tokens,
            model=message.model or model,
            provider=self.name,
        )


def translate_error(error: anthropic.AnthropicError, *, task: str, model: str) -> LLMError:
    """Map an SDK exception to LLMTransientError (retry) or LLMError (give up now)."""
    import anthropic

    where = f"anthropic {model} ({task})"
    if isinstance(error, anthropic.APIStatusError):
        status = error.status_code
        detail = error.api_message or str(error)
        kind = f" {error.type}" if error.type else ""
        text = f"{where}: HTTP {status}{kind}: {detail}"
        if status in RETRYABLE_STATUS or status >= 500:
            return LLMTransientError(text)
        return LLMError(text)
    if isinstance(error, anthropic.APITimeoutError):
        return LLMTransientError(f"{where}: request timed out")
    if isinstance(error, anthropic.APIConnectionError):
        return LLMTransientError(f"{where}: connection failed: {error}")
    return LLMError(f"{where}: {type(error).__name__}: {error}")
