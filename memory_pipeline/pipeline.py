"""What the pipeline is, without Dagster: its stages, their days, models and code versions.

defs/ turns these facts into assets, partitions, sensors and schedules; the CLI, the flows and
the benchmarks read them from here, so nothing below the wiring imports it.
"""

from __future__ import annotations

from datetime import date, datetime, timezone

from memory_pipeline.config import Settings, machine_timezone
from memory_pipeline.errors import BadInputError
from memory_pipeline.prompts import load_prompt

OFFLINE_MODEL = "offline-extractive-1"
# The module Dagster loads (`dagster dev -m …`, [tool.dg.project] in pyproject.toml).
DEFINITIONS_MODULE = "memory_pipeline.definitions"
# The stages that ask a model, by the prompt file they use (prompts/<name>.md).
LLM_STAGES = {"observe": "observer", "reflect": "reflector", "rewrite": "rewrite", "friction": "friction",
              "ledger": "ledger"}
# Code versions of the stages without a prompt: bump one when its output changes for the same input.
FIXED_VERSIONS = {"sessions": "sessions-2", "observation_index": "index-1", "message_index": "message-index-3",
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


DEFAULT_HISTORY_DAYS = 90


def partitions_start(settings: Settings) -> str:
    """MEMORY_PARTITIONS_START, else the workspace's first day: 90 days before its first use, moved
    back to the oldest day imported (kept in state/partitions-start.txt; only ever earlier)."""
    if settings.partitions_start:
        return settings.partitions_start
    from datetime import timedelta

    from memory_pipeline.resources.workspace import Workspace

    proposed = (local_today(settings) - timedelta(days=DEFAULT_HISTORY_DAYS)).isoformat()
    return Workspace(settings.workspace).create().first_day(proposed)


def today_utc() -> date:
    return datetime.now(timezone.utc).date()


def timezone_name(settings: Settings) -> str:
    """The time zone schedules run in and days are dated in: MEMORY_TIMEZONE or the machine's."""
    return settings.timezone or machine_timezone()


def local_today(settings: Settings) -> date:
    from zoneinfo import ZoneInfo

    return datetime.now(ZoneInfo(timezone_name(settings))).date()


def valid_day(day: str, settings: Settings, today: date | None = None) -> bool:
    """A day has a partition: YYYY-MM-DD between the partitions' first day and today (inclusive)."""
    try:
        parsed = date.fromisoformat(day)
    except (TypeError, ValueError):
        return False
    return date.fromisoformat(partitions_start(settings)) <= parsed <= (today or today_utc())


def check_day(day: str, settings: Settings) -> str:
    """`day` when it has a partition, else BadInputError saying which days do (the `--date` check)."""
    if not valid_day(day, settings):
        raise BadInputError(f"--date {day} is not a daily partition (YYYY-MM-DD from "
                            f"{partitions_start(settings)} to today)")
    return day


def day_checker(settings: Settings):
    """`valid_day` bound to the settings, for the inbox and import (callable(day) -> bool)."""
    fixed = settings.replace(partitions_start=partitions_start(settings))  # read the workspace once
    return lambda day: valid_day(day, fixed)


def importable_day(settings: Settings):
    """The days `import` accepts (callable(day) -> bool): any day up to today, since an import moves
    the partitions' first day back to its oldest session; with MEMORY_PARTITIONS_START set, none
    before it (the setting wins)."""
    def importable(day: str) -> bool:
        try:
            parsed = date.fromisoformat(day)
        except (TypeError, ValueError):
            return False
        first = date.fromisoformat(settings.partitions_start) if settings.partitions_start else date.min
        return first <= parsed <= today_utc()

    return importable

