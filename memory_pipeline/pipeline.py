"""What the pipeline is, without Dagster: its stages, their days, models and code versions.

defs/ turns these facts into assets, partitions, sensors and schedules; the CLI, the flows and
the benchmarks read them from here, so nothing below the wiring imports it.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
from datetime import UTC, date, datetime
from functools import lru_cache
from pathlib import Path
from zoneinfo import ZoneInfo

from memory_pipeline.config import Settings, machine_timezone
from memory_pipeline.prompts import Prompt, load_prompt

OFFLINE_MODEL = "offline-extractive-1"
# The module Dagster loads (`dagster dev -m …`, [tool.dg.project] in pyproject.toml).
DEFINITIONS_MODULE = "memory_pipeline.definitions"
# The stages that ask a model, by the prompt file they use (prompts/<name>.md).
LLM_STAGES = {"observe": "observer", "reflect": "reflector", "rewrite": "rewrite", "friction": "friction",
              "ledger": "ledger"}
# Code versions of the stages without a prompt: bump one when its output changes for the same input.
FIXED_VERSIONS = {"sessions": "sessions-2", "observation_index": "index-1", "message_index": "message-index-4",
                  "proposals": "proposals-1", "memory_md": "memory-md-1", "maintenance": "maintenance-1",
                  "index_audit": "index-audit-1", "recall_pack": "recall-pack-1",
                  "ledger_maintenance": "ledger-maintenance-1"}


# The offline provider does not read the prompt's instructions: its rules are code. By prompt name, the
# module of the offline extractor that answers it (resources/llm/offline.py); its code version is the
# hash of that module's source and of every memory_pipeline.stages module it imports, directly or not.
OFFLINE_RULES = {"observer": "memory_pipeline.stages.offline.observer",
                 "reflector": "memory_pipeline.stages.offline.reflector",
                 "ledger": "memory_pipeline.stages.ledger.event_typing",
                 "friction": "memory_pipeline.stages.friction.wording",
                 "rewrite": "memory_pipeline.stages.recall.rewrite"}
_PACKAGE = Path(__file__).resolve().parent


def _module_file(module: str) -> Path | None:
    base = _PACKAGE.joinpath(*module.split(".")[1:])
    return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)


def rules_files(module: str) -> list[Path]:
    """The source files of `module` and of the memory_pipeline.stages modules it imports, transitively."""
    seen: dict[str, Path] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        path = _module_file(name)
        if name in seen or path is None:
            continue
        seen[name] = path
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("memory_pipeline.stages"):
                todo += [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                todo += [a.name for a in node.names if a.name.startswith("memory_pipeline.stages")]
    return sorted(seen.values())


@lru_cache(maxsize=16)
def offline_rules_sha(prompt_name: str) -> str:
    """The hash of the offline rules that answer this prompt: what the offline provider's output follows."""
    digest = hashlib.sha256()
    for path in rules_files(OFFLINE_RULES[prompt_name]):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def stage_prompt(name: str, settings: Settings) -> Prompt:
    """The prompt a stage renders, its code version following what answers it: the prompt file and
    the model for a model, the offline rules' source for the offline provider (which reads only the
    transcript out of the rendered prompt, never its instructions)."""
    prompt = load_prompt(name, settings.prompts_dir)
    if settings.llm_provider == "offline" and name in OFFLINE_RULES:
        return dataclasses.replace(prompt, rules_sha=offline_rules_sha(name))
    return prompt


def model_for(settings: Settings, task: str) -> str:
    """The model a task runs on: the offline extractor, the Reflector's model, or the Observer's."""
    if settings.llm_provider == "offline":
        return OFFLINE_MODEL
    stronger = ("reflect", "reflector", "friction")  # friction words fixes a person will apply
    return settings.reflector_model if task in stronger else settings.observer_model


# Stages whose output also depends on another stage's logic: their code version carries it, so an
# Observer prompt edit marks the observation index (built from the Observer's facts) and every
# reflection (the Reflector reads the Observer's instructions) stale, not only `observations`.
# Dagster 1.13 does not pass "upstream is stale" down the graph by itself.
CARRIES = {"observation_index": ("observe",), "reflect": ("observe",)}


def own_code_version(stage: str, settings: Settings) -> str:
    """A stage's own code version: for LLM stages its prompt's hash and its model (offline: its rules'
    source and the offline model), a fixed tag otherwise."""
    if stage in LLM_STAGES:
        return stage_prompt(LLM_STAGES[stage], settings).code_version(model_for(settings, stage))
    return FIXED_VERSIONS[stage]


def code_version(stage: str, settings: Settings) -> str:
    """The code version Dagster compares: the stage's own, plus those of the stages it carries."""
    carried = [f"{name}-{own_code_version(name, settings)}" for name in CARRIES.get(stage, ())]
    return "+".join([own_code_version(stage, settings), *carried])


def today_utc() -> date:
    return datetime.now(UTC).date()


def timezone_name(settings: Settings) -> str:
    """The time zone schedules run in and days are dated in: MEMORY_TIMEZONE or the machine's."""
    return settings.timezone or machine_timezone()


def local_today(settings: Settings) -> date:
    return datetime.now(ZoneInfo(timezone_name(settings))).date()
