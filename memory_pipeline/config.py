"""Settings read from the environment, once, when asked for (never at import time)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_WORKSPACE = "~/.memory-pipeline/workspace"


@dataclass(frozen=True)
class Settings:
    workspace: Path
    redis_url: str | None
    qdrant_url: str | None
    qdrant_api_key: str | None
    embedding_model: str
    llm_provider: str
    observer_model: str
    reflector_model: str
    anthropic_api_key: str | None
    anthropic_base_url: str | None
    # MEMORY_RECALL_RECENCY_WEIGHT: the most recency adds to a recall score (stages/recall/rank.py,
    # RankOptions.recency_weight); None keeps the default. 0 turns recency off.
    recall_recency_weight: float | None = None

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> "Settings":
        env = dict(os.environ if env is None else env)
        api_key = env.get("ANTHROPIC_API_KEY") or None
        provider = env.get("MEMORY_LLM_PROVIDER") or ("anthropic" if api_key else "offline")
        return cls(
            workspace=Path(env.get("MEMORY_WORKSPACE") or DEFAULT_WORKSPACE).expanduser().resolve(),
            redis_url=env.get("REDIS_URL") or None,
            qdrant_url=env.get("QDRANT_URL") or None,
            qdrant_api_key=env.get("QDRANT_API_KEY") or None,
            embedding_model=env.get("MEMORY_EMBEDDING_MODEL") or "all-MiniLM-L6-v2",
            llm_provider=provider,
            observer_model=env.get("OBSERVER_MODEL") or "claude-haiku-4-5",
            reflector_model=env.get("REFLECTOR_MODEL") or "claude-sonnet-4-5",
            anthropic_api_key=api_key,
            anthropic_base_url=env.get("ANTHROPIC_BASE_URL") or None,
            recall_recency_weight=_number(env, "MEMORY_RECALL_RECENCY_WEIGHT"),
        )


def _number(env: dict[str, str], name: str) -> float | None:
    from memory_pipeline.errors import BadInputError

    raw = env.get(name)
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError as exc:
        raise BadInputError(f"{name} must be a number, got {raw!r}") from exc
    if value < 0:
        raise BadInputError(f"{name} must not be negative, got {value}")
    return value
