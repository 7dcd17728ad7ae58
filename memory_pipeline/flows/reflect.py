"""One day's reflection: the work behind the `reflections` asset and the token-threshold trigger.

Reads the observations of a window of days ending at the reflected day, re-distills those older
than three days (in the Redis hot list too; the files under observations/<day>/ keep the
original), asks the Reflector, stores reflections/<day>.json and writes `### 🔭 Reflected`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from memory_pipeline.flows.observe import hot_entry
from memory_pipeline.models import Observation, Reflection, content_hash
from memory_pipeline.ports import Completer, HotList
from memory_pipeline.prompts import Prompt
from memory_pipeline.resources.files.daily_log import DailyLog, marker
from memory_pipeline.resources.files.memory_files import MemoryFiles
from memory_pipeline.resources.files.observation_files import load_observations
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.reflect.by_project import by_project, combine, file_draft
from memory_pipeline.stages.reflect.reflector import needs_redistill, redistill, reflect_observations
from memory_pipeline.stages.review.memory_md import for_project
from memory_pipeline.stages.tokens import estimate_tokens

REFLECT_WINDOW_DAYS = 7


@dataclass
class ReflectResult:
    reflection: Reflection
    notes: list[str] = field(default_factory=list)
    hot_entries_redistilled: int = 0


def reflection_path(workspace: Workspace, day: str) -> Path:
    return workspace.reflection_path(day)


def load_reflection(workspace: Workspace, day: str) -> Reflection | None:
    path = reflection_path(workspace, day)
    if not path.exists():
        return None
    return Reflection.model_validate_json(path.read_text(encoding="utf-8"))


def window(day: str, days: int) -> list[str]:
    end = date.fromisoformat(day)
    return [(end - timedelta(days=n)).isoformat() for n in range(days - 1, -1, -1)]


def redistill_hot_list(redis_store: HotList, day: str, originals: dict[str, Observation]) -> int:
    """Replace the day's hot-list entries by their re-distilled form (once); returns how many."""
    replaced = 0
    for index, entry in enumerate(redis_store.observations(day)):
        observation = originals.get(entry.get("observationId", ""))
        if entry.get("distilled") or observation is None:
            continue
        new = hot_entry(redistill(observation))
        original = int(entry.get("tokenCount") or 0) or estimate_tokens(entry.get("observations") or "")
        new.update(distilled=True, originalTokenCount=original,
                   tokenCount=estimate_tokens(new["observations"]))
        redis_store.replace_observation(day, index, new)
        replaced += 1
    return replaced


def day_tokens(redis_store: HotList, day: str) -> int:
    """The estimated tokens of a day's hot list (what the reflection threshold is measured on)."""
    return sum(int(entry.get("tokenCount") or 0) for entry in redis_store.observations(day))


def reflection_version(reflection: Reflection) -> str:
    """Changes with the prompt, the model and the set of observations reflected on."""
    return reflection.code_version + "-" + content_hash(json.dumps(reflection.observation_ids))[:8]


def reflected_section(day: str, reflection: Reflection, notes: list[str]) -> str:
    counts: dict[str, int] = {}
    for draft in reflection.proposals:
        counts[draft.section] = counts.get(draft.section, 0) + 1
    ratio = reflection.output_tokens / reflection.input_tokens if reflection.input_tokens else 0.0
    by_section = ", ".join(f"{name} {n}" for name, n in counts.items()) or "none"
    lines = [
        "### 🔭 Reflected",
        "",
        reflection.summary or "*Nothing to reflect on.*",
        "",
        f"**Stats**: {len(reflection.observation_ids)} observations from {len(reflection.sessions)} sessions "
        f"({len(reflection.redistilled_ids)} re-distilled); {reflection.input_tokens} → "
        f"{reflection.output_tokens} tokens (ratio {ratio:.2f}); guidance level {reflection.guidance_level}, "
        f"{reflection.attempts} attempt(s); {len(reflection.proposals)} proposals ({by_section})",
    ]
    if notes:
        lines.append(f"**Compression**: {'; '.join(notes)}")
    return "\n".join(lines + ["", marker("reflection", day, reflection_version(reflection))]) + "\n"


def reflect_day(
    workspace: Workspace,
    day: str,
    *,
    llm: Completer,
    prompt: Prompt,
    model: str,
    observer_prompt: Prompt,
    redis_store: HotList | None = None,
    window_days: int = REFLECT_WINDOW_DAYS,
) -> ReflectResult:
    """Reflect on the observations of the `window_days` ending at `day` (temporal gradient applied)."""
    by_day = {d: load_observations(workspace, d) for d in window(day, window_days)}
    inputs, distilled_ids, replaced = [], set(), 0
    for observation_day, found in by_day.items():
        old = {o.id: o for o in found if needs_redistill(o, day)}
        distilled_ids |= set(old)
        inputs += [redistill(o) if o.id in old else o for o in found]
        if old and redis_store is not None:
            replaced += redistill_hot_list(redis_store, observation_day, old)
    memory = MemoryFiles(workspace).read_memory()
    parts = []
    for project, group in (by_project(inputs) or {"": []}).items():  # no proposal mixes two projects
        part, part_notes = reflect_observations(
            group, day=day, memory_md=for_project(memory, project),
            observer_instructions=observer_prompt.system, llm=llm, prompt=prompt, model=model,
            distilled_ids=distilled_ids,
        )
        drafts = [file_draft(d, project, group) for d in part.proposals]
        parts.append((part.model_copy(update={"proposals": drafts}), part_notes))
    reflection, notes = combine(day, parts)
    workspace.write_json(reflection_path(workspace, day), json.loads(reflection.model_dump_json()))
    DailyLog(workspace).upsert(day, reflected_section(day, reflection, notes), kind="reflection", key=day,
                               version=reflection_version(reflection))
    return ReflectResult(reflection, notes, replaced)


def days_to_reflect(redis_store: HotList, days: list[str], threshold: int) -> list[tuple[str, int]]:
    """(day, tokens) for each day whose hot list passed `threshold`, claimed once per day in Redis."""
    found = []
    for day in days:
        tokens = day_tokens(redis_store, day)
        if tokens > threshold and redis_store.mark_reflect_triggered(day):
            found.append((day, tokens))
    return found


def unreflected_days(workspace: Workspace, before: str | None = None) -> list[str]:
    """Days (oldest first, before `before` when given) whose observations no reflection has read:
    no reflections/<day>.json, or one written before some of the day's observations (an import)."""
    root = workspace.observations_root
    days = sorted(p.name for p in root.iterdir() if p.is_dir() and any(p.glob("*.json"))) if root.is_dir() else []
    found = []
    for day in days:
        if before is not None and day >= before:
            continue
        reflection = load_reflection(workspace, day)
        observed = {o.id for o in load_observations(workspace, day)}
        if reflection is None or not observed <= set(reflection.observation_ids):
            found.append(day)
    return found


def observed_digest(workspace: Workspace, day: str) -> str:
    """A short digest of the day's observation ids: a run key that changes when an import adds one."""
    return content_hash(json.dumps(sorted(o.id for o in load_observations(workspace, day))))[:12]
