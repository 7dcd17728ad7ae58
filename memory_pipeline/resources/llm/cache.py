"""A file cache of validated LLM answers, keyed by (provider, model, system, prompt)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from memory_pipeline.resources.llm.base import LLMResponse
from memory_pipeline.resources.workspace import atomic_write_json

KEY_SEPARATOR = "\x1f"


def cache_key(provider: str, model: str, system: str, prompt: str) -> str:
    joined = KEY_SEPARATOR.join((provider, model, system, prompt))
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()


class ResponseCache:
    """One JSON file per answer at `<root>/<key[:2]>/<key>.json`, written atomically."""

    def __init__(self, root: Path):
        self.root = Path(root)

    def path_for(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def load(self, key: str) -> LLMResponse | None:
        """The stored answer, or None when absent or unreadable (a corrupt file counts as a miss)."""
        path = self.path_for(key)
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            response = LLMResponse.model_validate(stored["response"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return response.model_copy(update={"cached": True})

    def store(self, key: str, response: LLMResponse) -> None:
        record = {"key": key, "response": response.model_dump(exclude={"cached"})}
        atomic_write_json(self.path_for(key), record)
