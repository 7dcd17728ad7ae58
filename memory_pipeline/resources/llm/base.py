"""What every LLM provider returns and promises, and the error that asks for a retry."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel

from memory_pipeline.errors import LLMError


class LLMTransientError(LLMError):
    """A failure worth retrying: rate limit, overload, 5xx, connection drop, timeout."""


class LLMResponse(BaseModel):
    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    model: str
    provider: str
    cached: bool = False


class LLMProvider(Protocol):
    """One model vendor (or the offline extractor). Raises LLMTransientError or LLMError.

    `task` names the prompt ("observer", "reflector", ...); only the offline provider uses it.
    A provider may set `cacheable = False` to keep the client from caching its answers.
    """

    name: str

    def complete(self, *, task: str, model: str, system: str, prompt: str, max_tokens: int) -> LLMResponse: ...
