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
        )
