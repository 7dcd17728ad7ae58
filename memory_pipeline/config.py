"""Every setting in one place: one pydantic model, one default each, read from the environment once.

Nothing else in the package reads `os.environ` (the fault-injection points in faults.py aside).
docs/configuration.md's table is generated from this model (`settings_table()`), and a test
keeps the two equal.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.fields import FieldInfo

from memory_pipeline.errors import BadInputError

DEFAULT_WORKSPACE = "~/.memory-pipeline/workspace"
# Set for every process this package starts: the model ships in a package, so nothing may reach a hub.
PROCESS_DEFAULTS = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
                    "TQDM_DISABLE": "1"}


def setting(default: Any, env: str, doc: str, shown: str | None = None) -> Any:
    return Field(default, description=doc, json_schema_extra={"env": env, "shown": shown})


def _extra(info: FieldInfo) -> dict[str, Any]:
    """What `setting` put on a field: its variable ("env") and its default as documented ("shown")."""
    extra = info.json_schema_extra
    if not isinstance(extra, dict):
        raise TypeError(f"a Settings field not made with setting(): {info!r}")
    return extra


def env_of(info: FieldInfo) -> str:
    """A setting's environment variable."""
    return str(_extra(info)["env"])


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True)

    workspace: Path = setting(Path(DEFAULT_WORKSPACE), "MEMORY_WORKSPACE", "the workspace folder",
                              shown=f"`{DEFAULT_WORKSPACE}`")
    dagster_home: Path | None = setting(None, "DAGSTER_HOME", "Dagster's instance folder",
                                        shown="`$MEMORY_WORKSPACE/state/dagster`")
    redis_url: str | None = setting(None, "REDIS_URL", "a Redis server, e.g. `redis://host:6379/0`",
                                    shown="unset: a private redis-server on `state/redis/redis.sock`")
    qdrant_url: str | None = setting(None, "QDRANT_URL", "a Qdrant server, e.g. `http://qdrant:6333`",
                                     shown="unset: the embedded Qdrant Edge shard `state/vectors/`")
    qdrant_api_key: str | None = setting(None, "QDRANT_API_KEY", "the Qdrant server's API key")
    qdrant_lock_timeout: float = setting(30.0, "MEMORY_QDRANT_LOCK_TIMEOUT",
                                         "seconds to wait for another process holding the embedded shard")
    embedding_model: str = setting("all-MiniLM-L6-v2", "MEMORY_EMBEDDING_MODEL",
                                   "any sentence-transformers model name or path (the default is shipped, 384-d)")
    embedding_device: str = setting("auto", "MEMORY_EMBEDDING_DEVICE",
                                    "where embeddings run: `auto` (CUDA, then Apple MPS, then CPU), `cpu`, `cuda`, "
                                    "`cuda:N` or `mps`")
    model_cache: Path | None = setting(None, "MEMORY_MODEL_CACHE",
                                       "where the embedding model's ONNX export is kept (made once, by a child "
                                       "process); on CPU, ingest and recall embed with it without importing torch",
                                       shown="`~/.cache/memory-pipeline/models`")
    anthropic_api_key: str | None = setting(None, "ANTHROPIC_API_KEY",
                                            "the `anthropic` provider's key; a key alone chooses nothing")
    llm_provider: str = setting("offline", "MEMORY_LLM_PROVIDER",
                                "`offline`, `anthropic`, `claude-code` (the Claude Code CLI, logged in), "
                                "`codex` (the Codex CLI, logged in) or `openai-compatible` (`openai`: Ollama, "
                                "llama.cpp, vLLM at `MEMORY_OPENAI_BASE_URL`); "
                                "`memory-pipeline provider set NAME` keeps the choice in the workspace",
                                shown="the workspace's choice (`settings.json`), else `offline`")
    claude_command: str = setting("claude", "MEMORY_CLAUDE_COMMAND",
                                  "the Claude Code command the `claude-code` provider runs (`claude -p`)")
    codex_command: str = setting("codex", "MEMORY_CODEX_COMMAND",
                                 "the Codex command the `codex` provider runs (`codex exec`)")
    openai_base_url: str = setting("http://localhost:11434/v1", "MEMORY_OPENAI_BASE_URL",
                                   "the `openai-compatible` provider's endpoint (Chat Completions under it); "
                                   "the default is Ollama's")
    openai_api_key: str | None = setting(None, "MEMORY_OPENAI_API_KEY",
                                         "the `openai-compatible` endpoint's key, when it wants one")
    llm_daily_tokens: int = setting(2_000_000, "MEMORY_LLM_DAILY_TOKENS",
                                    "tokens a day each model provider may spend (the offline one spends none; "
                                    "0: no limit); a call that would go over stops its stage")
    observer_model: str = setting("claude-haiku-4-5", "OBSERVER_MODEL", "the Observer's model")
    reflector_model: str = setting("claude-sonnet-4-5", "REFLECTOR_MODEL", "the Reflector's model")
    anthropic_base_url: str | None = setting(None, "ANTHROPIC_BASE_URL", "an Anthropic-compatible endpoint",
                                             shown="the SDK default")
    llm_timeout_seconds: float = setting(60.0, "MEMORY_LLM_TIMEOUT_SECONDS", "seconds for one LLM call")
    prompts_dir: Path | None = setting(None, "MEMORY_PROMPTS_DIR",
                                       "a folder of edited prompt files (changes the code versions)",
                                       shown="`prompts/` in the project")
    reflect_threshold_tokens: int = setting(40_000, "MEMORY_REFLECT_THRESHOLD_TOKENS",
                                            "a day's observation tokens that trigger an early reflection")
    redis_retry_seconds: float = setting(30.0, "MEMORY_REDIS_RETRY_SECONDS",
                                         "wait before a run retries a step that found Redis down")
    recall_recency_weight: float = setting(0.05, "MEMORY_RECALL_RECENCY_WEIGHT",
                                           "the most recency adds to a recall score (halved every 30 days; 0 = off)")
    redis_idle_timeout: float = setting(1800.0, "MEMORY_REDIS_IDLE_TIMEOUT",
                                        "seconds the embedded redis-server waits with no client and no command "
                                        "before it persists and stops (0: never); the next command starts it again")
    recall_idle_timeout: float = setting(1800.0, "MEMORY_RECALL_IDLE_TIMEOUT",
                                         "seconds the recall service waits idle before it stops")
    recall_start_timeout: float = setting(90.0, "MEMORY_RECALL_START_TIMEOUT",
                                          "seconds to wait for a cold recall service (model and index load)")
    recall_torch_threads: int = setting(1, "MEMORY_RECALL_TORCH_THREADS",
                                        "threads that embed a query in the recall service, ONNX Runtime's or "
                                        "torch's (one query is tiny)")
    context_window: int | None = setting(None, "MEMORY_CONTEXT_WINDOW",
                                         "the window the UserPromptSubmit hook measures against",
                                         shown="by model name: 200k, or 1M for `[1m]` models")
    dedup_similarity: float = setting(0.85, "MEMORY_DEDUP_SIMILARITY",
                                      "cosine at which two facts are one memory (maintenance merges them)")
    stale_after_days: int = setting(90, "MEMORY_STALE_AFTER_DAYS",
                                    "days without a recall or an echo after which a memory is tagged stale")
    auto_reject: bool = setting(True, "MEMORY_AUTO_REJECT",
                                "triage rejects junk proposals on its own (reversible: `review restore ID`)")
    auto_promote: bool = setting(False, "MEMORY_AUTO_PROMOTE",
                                 "triage promotes durable proposals on its own (never held ones)")
    partitions_start: str | None = setting(None, "MEMORY_PARTITIONS_START",
                                           "the first day of the daily partitions (YYYY-MM-DD), overriding the "
                                           "workspace's; an import refuses sessions before it",
                                           shown="90 days before first use, moved back to the oldest session "
                                                 "imported; kept in `state/partitions-start.txt`")
    timezone: str | None = setting(None, "MEMORY_TIMEZONE",
                                   "the IANA time zone the daily schedules run in, e.g. `Europe/Paris`",
                                   shown="the machine's time zone")
    friction_min_observations: int = setting(10, "MEMORY_FRICTION_MIN_OBSERVATIONS",
                                             "friction analysis skips a window with fewer observations")
    friction_min_sessions: int = setting(2, "MEMORY_FRICTION_MIN_SESSIONS",
                                         "sessions a pattern must recur in to become a friction fix")
    project_map: str | None = setting(None, "MEMORY_PROJECT_MAP",
                                      "`PATTERN=NAME;…`: name the project of session folders matching a glob "
                                      "(first match wins)", shown="unset: the git repository's folder name")
    daemon_idle_stop: float = setting(300.0, "MEMORY_DAEMON_IDLE_STOP",
                                      "seconds the always-on pipeline keeps the Dagster daemon up after its last work "
                                      "(an event in the inbox, a run); then it sleeps until an event, a REVIEW.md "
                                      "edit or a schedule's time wakes it")
    daemon_autostart: bool = setting(True, "MEMORY_DAEMON_AUTOSTART",
                                     "the first hook of a session starts the workspace's Dagster daemon (sensors "
                                     "and schedules) when none runs, without waiting for it; after `service stop` "
                                     "it stays stopped until `service start`")
    runtime_dir: Path = setting(Path(tempfile.gettempdir()), "XDG_RUNTIME_DIR",
                                "where short unix-socket paths go when the workspace path is too long",
                                shown="the system's temporary folder")

    @field_validator("workspace", mode="after")
    @classmethod
    def _absolute(cls, value: Path) -> Path:
        return value.expanduser().resolve()

    @field_validator("timezone", mode="after")
    @classmethod
    def _timezone(cls, value: str | None) -> str | None:
        if value:

            try:
                ZoneInfo(value)
            except (KeyError, ValueError) as exc:
                raise ValueError(f"unknown time zone {value!r} (use an IANA name such as Europe/Paris)") from exc
        return value

    @field_validator("embedding_device", mode="after")
    @classmethod
    def _device(cls, value: str) -> str:
        value = value.strip().lower()
        if value in ("auto", "cpu", "cuda", "mps") or re.fullmatch(r"cuda:\d+", value):
            return value
        raise ValueError("expected auto, cpu, cuda, cuda:N or mps")

    @field_validator("partitions_start", mode="after")
    @classmethod
    def _day(cls, value: str | None) -> str | None:
        if value:

            date.fromisoformat(value)  # a ValueError names the bad value
        return value

    @field_validator("llm_provider", mode="after")
    @classmethod
    def _provider(cls, value: str) -> str:
        value = value.strip().lower()
        return PROVIDER_ALIASES.get(value, value) or "offline"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from the environment (or `env`); an empty variable counts as unset."""
        source = os.environ if env is None else env
        given = {name: source[env_of(info)] for name, info in cls.model_fields.items()
                 if source.get(env_of(info), "").strip()}
        # The workspace's own choices (a command wrote them) come under the environment's; a key in
        # the environment never chooses a provider by itself.
        chosen = workspace_choices(Path(given.get("workspace", DEFAULT_WORKSPACE)).expanduser())
        values = {**chosen, **given}
        try:
            return cls(**values)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = str(first["loc"][0])
            env_name = env_of(cls.model_fields[field])
            raise BadInputError(f"{env_name}={values.get(field)!r}: {first['msg']}") from exc

    def replace(self, **changes: Any) -> Settings:
        return self.model_copy(update=changes)


PROVIDER_ALIASES = {"openai": "openai-compatible"}
WORKSPACE_SETTINGS = "settings.json"  # in the workspace folder: {"MEMORY_LLM_PROVIDER": "claude-code"}
CHOSEN_IN_WORKSPACE = ("llm_provider",)  # the settings a workspace may keep (`provider set` writes it)


def workspace_settings_path(workspace: Path) -> Path:
    return Path(workspace) / WORKSPACE_SETTINGS


def workspace_choices(workspace: Path) -> dict[str, str]:
    """The settings kept in the workspace's settings.json, by field name; a missing file is none, a
    garbled one is a clear error (it names the file)."""
    path = workspace_settings_path(workspace)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise BadInputError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        kept = json.loads(text)
    except ValueError as exc:
        raise BadInputError(f"{path} is not JSON ({exc}); fix it or remove it") from exc
    if not isinstance(kept, dict):
        raise BadInputError(f"{path} must hold an object such as {{\"MEMORY_LLM_PROVIDER\": \"offline\"}}")
    fields = {env_of(Settings.model_fields[name]): name for name in CHOSEN_IN_WORKSPACE}
    return {fields[key]: str(value) for key, value in kept.items() if key in fields and str(value).strip()}


def provider_chosen_by(workspace: Path) -> str:
    """Where the provider in force was chosen: `MEMORY_LLM_PROVIDER`, the workspace's settings.json,
    or nobody (the offline default)."""
    if os.environ.get("MEMORY_LLM_PROVIDER", "").strip():
        return "MEMORY_LLM_PROVIDER"
    if workspace_choices(workspace).get("llm_provider"):
        return str(workspace_settings_path(workspace))
    return "the default"


def settings_table() -> str:
    """docs/configuration.md's table, generated from `Settings`."""
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for info in Settings.model_fields.values():
        extra = _extra(info)
        shown = extra["shown"] or (f"`{info.default}`" if info.default is not None else "unset")
        rows.append(f"| `{extra['env']}` | {shown} | {info.description} |")
    return "\n".join(rows)


def machine_timezone() -> str:
    """The machine's IANA time zone: TZ, else what /etc/localtime points to, else UTC."""
    named = os.environ.get("TZ", "").lstrip(":")
    if named and ("/" in named or named == "UTC"):
        return named
    link = Path("/etc/localtime")
    if link.is_symlink() and "zoneinfo/" in str(link.resolve()):
        return str(link.resolve()).split("zoneinfo/", 1)[1]
    return "UTC"


def user_config_home(home: Path) -> Path:
    """XDG_CONFIG_HOME, else ~/.config: where a systemd user unit goes."""
    return Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")


def configure_process() -> None:
    """Called once by each entry point (the CLI, the recall service): offline model loading."""
    for name, value in PROCESS_DEFAULTS.items():
        os.environ.setdefault(name, value)


def workspace_override() -> str | None:
    """MEMORY_WORKSPACE when the user set it (the hooks' command line carries it), else None."""
    return os.environ.get("MEMORY_WORKSPACE") or None


def child_environment(drop: tuple[str, ...] = (), **variables: str) -> dict[str, str]:
    """This process's environment, less `drop`, with `variables` set: for a child process."""
    return {**{k: v for k, v in os.environ.items() if k not in drop}, **variables}


def set_process_environment(**variables: str) -> None:
    """Point this process (and the children it starts) at other settings: a benchmark's own
    workspace. Only harnesses call it; nothing reads settings from anywhere but `Settings`."""
    os.environ.update(variables)


if __name__ == "__main__":  # `python -m memory_pipeline.config` prints docs/configuration.md's table
    print(settings_table())
