"""The Claude Code CLI headless as a model: `claude -p --output-format json`, for users who have
Claude Code logged in and no API key. The prompt goes on stdin, the system prompt replaces Claude
Code's own, and tools, hooks and session files are off."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from memory_pipeline.errors import LLMError
from memory_pipeline.resources.llm.agent_cli import empty_folder, failure, run_cli
from memory_pipeline.resources.llm.base import LLMResponse, counted_tokens

NO_HOOKS = json.dumps({"disableAllHooks": True})


class ClaudeCodeProvider:
    name = "claude-code"

    def __init__(self, command: str = "claude", timeout: float = 300.0):
        self.command = shlex.split(command)
        self.timeout = timeout

    def argv(self, model: str, system: str) -> list[str]:
        return [*self.command, "-p", "--output-format", "json", "--model", model, "--system-prompt", system,
                "--tools", "", "--strict-mcp-config", "--settings", NO_HOOKS, "--no-session-persistence"]

    def complete(self, *, task: str, model: str, system: str, prompt: str, max_tokens: int) -> LLMResponse:
        where = f"claude-code {model} ({task})"
        with empty_folder() as folder:
            stdout = run_cli(self.argv(model, system), stdin=prompt, timeout=self.timeout, where=where,
                             cwd=Path(folder))
        result = _result_line(stdout, where)
        if result.get("is_error") or result.get("subtype") != "success":
            raise failure(where, str(result.get("result") or result.get("subtype") or "failed"))
        usage = result.get("usage") or {}
        spent_in = sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_creation_input_tokens",
                                                        "cache_read_input_tokens"))
        text = str(result.get("result") or "")
        return LLMResponse(text=text, input_tokens=counted_tokens(spent_in, system, prompt),
                           output_tokens=counted_tokens(usage.get("output_tokens"), text), model=model,
                           provider=self.name)


def _result_line(stdout: str, where: str) -> dict:
    """The `{"type": "result", ...}` object Claude Code prints last."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and value.get("type") == "result":
            return value
    raise LLMError(f"{where}: no JSON result in the CLI's output: {stdout.strip()[:300]!r}")
