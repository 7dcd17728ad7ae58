"""What the pipeline is, without Dagster: its stages, their days, models and code versions.

defs/ turns these facts into assets, partitions, sensors and schedules; the CLI, the flows and
the benchmarks read them from here, so nothing below the wiring imports it.
"""

from __future__ import annotations

from datetime import date, datetime, timezone

from memory_pipeline.config import Settings, machine_timezone
from memory_pipeline.prompts import load_prompt

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
    """A stage's own code version: its prompt's hash and its model for LLM stages, a fixed tag otherwise."""
    if stage in LLM_STAGES:
        return load_prompt(LLM_STAGES[stage], settings.prompts_dir).code_version(model_for(settings, stage))
    return FIXED_VERSIONS[stage]


def code_version(stage: str, settings: Settings) -> str:
    """The code version Dagster compares: the stage's own, plus those of the stages it carries."""
    carried = [f"{name}-{own_code_version(name, settings)}" for name in CARRIES.get(stage, ())]
    return "+".join([own_code_version(stage, settings), *carried])


def today_utc() -> date:
    return datetime.now(timezone.utc).date()


def timezone_name(settings: Settings) -> str:
    """The time zone schedules run in and days are dated in: MEMORY_TIMEZONE or the machine's."""
    return settings.timezone or machine_timezone()


def local_today(settings: Settings) -> date:
    from zoneinfo import ZoneInfo

    return datetime.now(ZoneInfo(timezone_name(settings))).date()
