"""The Codex CLI as a model: `codex exec --json -o FILE`, for users who have Codex logged in.
Codex has no system-prompt option, so the system prompt leads the prompt; the run is ephemeral, in an
empty folder, and offers the model no tool at all: the shell, web search, images, sub-agents, goals,
MCP servers, apps, plugins and hooks are off, so a hostile transcript cannot ask it to read files
(`~/.ssh`, `~/.aws`) into its answer. The user's `config.toml` is not loaded (its MCP servers and
hooks would add tools); only its model and login settings are handed on as `-c` overrides. A Claude
model name (the default OBSERVER_MODEL) is not passed: Codex then uses the model its own config names."""

from __future__ import annotations

import json
import shlex
import tomllib
from pathlib import Path

from memory_pipeline.config import child_environment
from memory_pipeline.errors import LLMError
from memory_pipeline.resources.llm.agent_cli import empty_folder, failure, run_cli
from memory_pipeline.resources.llm.base import LLMResponse, counted_tokens

# Each is `-c features.NAME=false`: a name an older or newer Codex does not know is ignored (where
# `--disable NAME` would refuse to run).
TOOL_FEATURES = ("shell_tool", "unified_exec", "view_image", "multi_agent", "multi_agent_v2", "goals", "apps",
                 "plugins", "hooks", "memories", "image_generation", "browser_use", "computer_use", "skill_search",
                 "tool_suggest", "sleep_tool", "code_mode")
NO_TOOLS = [*(part for name in TOOL_FEATURES for part in ("-c", f"features.{name}=false")),
            "-c", 'web_search="disabled"', "-c", "tools.experimental_request_user_input.enabled=false"]
# What of the user's config.toml is handed on: which model, through which provider, logged in how.
CARRIED = ("model_provider", "model_providers", "model_reasoning_effort", "model_reasoning_summary",
           "model_verbosity", "openai_base_url", "chatgpt_base_url", "forced_login_method",
           "forced_chatgpt_workspace_id", "cli_auth_credentials_store")


class CodexProvider:
    name = "codex"

    def __init__(self, command: str = "codex", timeout: float = 300.0):
        self.command = shlex.split(command)
        self.timeout = timeout

    def argv(self, model: str, answer: Path, folder: Path) -> list[str]:
        user = user_model_settings()
        chosen = [] if model.startswith("claude-") else ["-m", model]
        if not chosen and "model" in user:
            chosen = ["-m", str(user["model"])]
        carried = [part for key in CARRIED if key in user for part in ("-c", f"{key}={toml_value(user[key])}")]
        return [*self.command, "exec", "--json", "--ephemeral", "--skip-git-repo-check", "--ignore-user-config",
                "--sandbox", "read-only", *NO_TOOLS, *carried, "--color", "never", "-C", str(folder),
                "-o", str(answer), *chosen, "-"]

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
        return LLMResponse(text=text, input_tokens=counted_tokens(usage.get("input_tokens"), system, prompt),
                           output_tokens=counted_tokens(usage.get("output_tokens"), text), model=model,
                           provider=self.name)


def user_model_settings() -> dict:
    """The model and login settings of the user's Codex config (`$CODEX_HOME/config.toml`, else
    `~/.codex/config.toml`); {} when there is none."""
    home = child_environment().get("CODEX_HOME")
    path = Path(home) if home else Path.home() / ".codex"
    try:
        text = (path / "config.toml").read_text(encoding="utf-8")
    except OSError:
        return {}
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise LLMError(f"codex: {path / 'config.toml'} is not valid TOML ({error}); fix it for Codex first") from error
    return {k: v for k, v in config.items() if k == "model" or k in CARRIED}


def toml_value(value: object) -> str:
    """`value` as one TOML value (inline tables for tables), for a `-c key=value` override."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)


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
