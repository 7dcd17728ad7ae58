"""Prompts are files in prompts/: their hash is the code version; rendering is strict.

A prompt file holds the system prompt, then a line `=== user ===`, then the user template.
Variables are written `{{name}}`; rendering with a missing or an extra variable is an error.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from memory_pipeline.errors import MemoryPipelineError

USER_MARKER = "=== user ==="
_VARIABLE = re.compile(r"\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}")


PROJECT_PROMPTS = Path(__file__).resolve().parent.parent / "prompts"


def prompts_dir(folder: Path | None = None) -> Path:
    """`folder` (the MEMORY_PROMPTS_DIR setting) when given, else prompts/ in the project."""
    return Path(folder) if folder else PROJECT_PROMPTS


@dataclass(frozen=True)
class Prompt:
    name: str
    system: str
    user: str
    sha256: str
    # what produces the answer when that is not the prompt: the offline provider's rules (pipeline.stage_prompt)
    rules_sha: str = ""

    @property
    def variables(self) -> set[str]:
        return set(_VARIABLE.findall(self.system)) | set(_VARIABLE.findall(self.user))

    def render(self, **values: str) -> tuple[str, str]:
        """Return (system, user) with every variable filled; strict about names."""
        missing = self.variables - values.keys()
        extra = values.keys() - self.variables
        if missing or extra:
            raise MemoryPipelineError(
                f"prompt {self.name}: missing variables {sorted(missing)}, unexpected {sorted(extra)}"
            )

        def fill(template: str) -> str:
            return _VARIABLE.sub(lambda m: str(values[m.group(1)]), template)

        return fill(self.system), fill(self.user)

    def code_version(self, model: str) -> str:
        """Changes when what answers changes: the prompt file and the model, or (offline) the rules' source."""
        return hashlib.sha256(f"{self.rules_sha or self.sha256}:{model}".encode()).hexdigest()[:12]


def parse_prompt(name: str, text: str) -> Prompt:
    if USER_MARKER not in text:
        raise MemoryPipelineError(f"prompt {name}: no '{USER_MARKER}' line")
    system, user = text.split(USER_MARKER, 1)
    return Prompt(name, system.strip() + "\n", user.strip() + "\n", hashlib.sha256(text.encode()).hexdigest())


@lru_cache(maxsize=32)
def _load(path: Path, mtime_ns: int) -> Prompt:
    return parse_prompt(path.stem, path.read_text(encoding="utf-8"))


def load_prompt(name: str, folder: Path | None = None) -> Prompt:
    path = prompts_dir(folder) / f"{name}.md"
    if not path.is_file():
        raise MemoryPipelineError(f"prompt file not found: {path}")
    return _load(path, path.stat().st_mtime_ns)
