"""What every LLM provider returns and promises, and the error that asks for a retry."""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel

from memory_pipeline.errors import LLMError
from memory_pipeline.stages.tokens import estimate_tokens


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


def counted_tokens(reported: Any, *texts: str) -> int:  # `reported`: whatever JSON value the server sent
    """The tokens a server reported, or, when it reported none, an estimate from the characters
    sent or received: a server that says nothing still spends the daily budget."""
    try:
        tokens = int(reported or 0)
    except (TypeError, ValueError):
        tokens = 0
    return tokens if tokens > 0 else sum(estimate_tokens(text) for text in texts)
