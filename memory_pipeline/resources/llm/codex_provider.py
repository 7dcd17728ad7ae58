"""The Codex CLI as a model: `codex exec --json -o FILE`, for users who have Codex logged in.
Codex has no system-prompt option, so the system prompt leads the prompt; the sandbox is read-only,
in an empty folder, and the session is not saved. A Claude model name (the default OBSERVER_MODEL)
is not passed: Codex then uses the model its own config names."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from memory_pipeline.errors import LLMError
from memory_pipeline.resources.llm.agent_cli import empty_folder, failure, run_cli
from memory_pipeline.resources.llm.base import LLMResponse


class CodexProvider:
    name = "codex"

    def __init__(self, command: str = "codex", timeout: float = 300.0):
        self.command = shlex.split(command)
        self.timeout = timeout

    def argv(self, model: str, answer: Path, folder: Path) -> list[str]:
        chosen = [] if model.startswith("claude-") else ["-m", model]
        return [*self.command, "exec", "--json", "--ephemeral", "--skip-git-repo-check", "--sandbox", "read-only",
                "--color", "never", "-C", str(folder), "-o", str(answer), *chosen, "-"]

    def complete(self, *, task: str, model: str, system: str, prompt: str, max_tokens: int) -> LLMResponse:
        where = f"codex {model} ({task})"
        with empty_folder() as name:
            folder = Path(name)
            answer = folder / "answer.txt"
            stdout = run_cli(self.argv(model, answer, folder), stdin=f"{system}\n\n{prompt}", timeout=self.timeout,
                             where=where, cwd=folder)
            events = _events(stdout)
            errors = [e for e in events if e.get("type") in ("error", "turn.failed")]
            if errors:
                raise failure(where, json.dumps(errors[-1]))
            text = answer.read_text(encoding="utf-8") if answer.is_file() else ""
        if not text:
            raise LLMError(f"{where}: Codex wrote no answer")
        usage = next((e.get("usage") or {} for e in reversed(events) if e.get("type") == "turn.completed"), {})
        return LLMResponse(text=text, input_tokens=int(usage.get("input_tokens") or 0),
                           output_tokens=int(usage.get("output_tokens") or 0), model=model, provider=self.name)


def _events(stdout: str) -> list[dict]:
    found = []
    for line in stdout.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found
