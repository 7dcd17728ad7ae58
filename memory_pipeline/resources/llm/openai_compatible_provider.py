"""Any OpenAI-compatible endpoint (Ollama, llama.cpp's server, vLLM): `POST {base_url}/chat/completions`,
with a bearer key when one is set. One request per `complete`; retries belong to LLMClient. A server
that reports no token usage is counted by characters (`counted_tokens`), so the budget still holds."""

from __future__ import annotations

import httpx

from memory_pipeline.errors import LLMError
from memory_pipeline.resources.llm.anthropic_provider import RETRYABLE_STATUS
from memory_pipeline.resources.llm.base import LLMResponse, LLMTransientError, counted_tokens


class OpenAICompatibleProvider:
    name = "openai-compatible"

    def __init__(self, base_url: str, api_key: str | None = None, timeout: float = 60.0):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self.timeout = timeout

    def complete(self, *, task: str, model: str, system: str, prompt: str, max_tokens: int) -> LLMResponse:
        where = f"openai-compatible {model} ({task}) at {self.url}"
        body = {"model": model, "max_tokens": max_tokens, "stream": False,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}]}
        try:
            reply = httpx.post(self.url, json=body, headers=self.headers, timeout=self.timeout)
        except httpx.TimeoutException as error:
            raise LLMTransientError(f"{where}: request timed out") from error
        except httpx.HTTPError as error:
            raise LLMTransientError(f"{where}: connection failed: {error}") from error
        if reply.status_code != 200:
            text = f"{where}: HTTP {reply.status_code}: {reply.text[:400]}"
            retry = reply.status_code in RETRYABLE_STATUS or reply.status_code >= 500
            raise LLMTransientError(text) if retry else LLMError(text)
        try:
            answer = reply.json()
            text = answer["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError) as error:
            raise LLMError(f"{where}: not a Chat Completions answer: {reply.text[:300]!r}") from error
        usage = answer.get("usage") if isinstance(answer.get("usage"), dict) else {}
        return LLMResponse(text=text, input_tokens=counted_tokens(usage.get("prompt_tokens"), system, prompt),
                           output_tokens=counted_tokens(usage.get("completion_tokens"), text),
                           model=str(answer.get("model") or model), provider=self.name)
