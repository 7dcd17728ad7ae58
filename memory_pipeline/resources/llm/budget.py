"""A daily token budget per provider. The spend is kept in `state/llm-budget.json` (written
atomically, under a lock so parallel runs add up); a call starts only when the most it can spend
(its prompt's estimated tokens plus `max_tokens`) fits in what is left of today's budget."""

from __future__ import annotations

import fcntl
import json
from collections.abc import Callable
from datetime import date
from pathlib import Path

from memory_pipeline.errors import LLMError
from memory_pipeline.resources.llm.base import LLMProvider, LLMResponse
from memory_pipeline.resources.workspace import atomic_write_json
from memory_pipeline.stages.tokens import estimate_tokens


class BudgetExceededError(LLMError):
    """Today's token budget for a provider would be exceeded: the stage stops, never retried."""


class TokenBudget:
    """`spent(provider)` today and `add(provider, tokens)`; `daily_tokens` 0 means no limit."""

    def __init__(self, path: Path, daily_tokens: int, today: Callable[[], str] = lambda: date.today().isoformat()):
        self.path = Path(path)
        self.daily_tokens = daily_tokens
        self.today = today

    def _read(self) -> dict:
        try:
            stored = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return stored if isinstance(stored, dict) else {}

    def spent(self, provider: str) -> int:
        entry = self._read().get(provider) or {}
        return int(entry.get("tokens") or 0) if entry.get("day") == self.today() else 0

    def check(self, provider: str, most: int) -> None:
        if self.daily_tokens <= 0:
            return
        spent = self.spent(provider)
        if spent + most > self.daily_tokens:
            raise BudgetExceededError(
                f"{provider}: today's token budget would be exceeded ({spent:,} of {self.daily_tokens:,} spent, "
                f"this call may use {most:,}); stopped before calling. Raise MEMORY_LLM_DAILY_TOKENS "
                "(0 = no limit) or wait until tomorrow")

    def add(self, provider: str, tokens: int) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_suffix(".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            stored = self._read()
            spent = self.spent(provider)
            stored[provider] = {"day": self.today(), "tokens": spent + tokens}
            atomic_write_json(self.path, stored)

    def status(self, provider: str) -> dict:
        return {"day": self.today(), "spent_tokens": self.spent(provider),
                "daily_tokens": self.daily_tokens or "no limit"}


class BudgetedProvider:
    """A provider whose calls are checked against, and counted in, a TokenBudget."""

    def __init__(self, provider: LLMProvider, budget: TokenBudget):
        self.provider = provider
        self.budget = budget
        self.name = provider.name
        self.cacheable = getattr(provider, "cacheable", True)

    def complete(self, *, task: str, model: str, system: str, prompt: str, max_tokens: int) -> LLMResponse:
        self.budget.check(self.name, estimate_tokens(system) + estimate_tokens(prompt) + max_tokens)
        response = self.provider.complete(task=task, model=model, system=system, prompt=prompt, max_tokens=max_tokens)
        self.budget.add(self.name, response.input_tokens + response.output_tokens)
        return response
