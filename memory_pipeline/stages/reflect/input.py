"""What the Reflector reads: observations rendered with short refs, and the temporal gradient.

Each observation becomes an `<observation ref="O1" ...>` element; each fact ends with `{F7}`.
The refs map the Reflector's citations back to fact, observation and session ids. Observations
older than REDISTILL_AFTER_DAYS are re-distilled first: narratives and 🔴 facts only (Nuum).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from memory_pipeline.models import Observation, Segment
from memory_pipeline.stages.observe.format import format_fact
from memory_pipeline.stages.provenance import from_tool_output

REDISTILL_AFTER_DAYS = 3


@dataclass(frozen=True)
class Source:
    observation_id: str
    session_id: str
    fact_id: str | None = None


@dataclass
class ReflectorInput:
    text: str = ""
    refs: dict[str, Source] = field(default_factory=dict)
    observation_ids: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)


def age_days(day: str, observation_day: str) -> int:
    """Whole days between an observation's day and the reflected day (0 = same day)."""
    return (date.fromisoformat(day) - date.fromisoformat(observation_day)).days


def needs_redistill(observation: Observation, day: str) -> bool:
    return age_days(day, observation.date) > REDISTILL_AFTER_DAYS


def redistill(observation: Observation) -> Observation:
    """The compressed form: each segment keeps its title, narrative and 🔴 facts only."""
    segments = []
    for segment in observation.segments:
        high = [f for f in segment.facts if f.priority == "high"]
        if high or segment.narrative:
            segments.append(Segment(title=segment.title, narrative=segment.narrative, facts=high))
    return observation.model_copy(update={"segments": segments, "suggested_response": None})


def _attr(value: str) -> str:
    return " ".join(value.split()).replace('"', "'")


def render_observations(observations: list[Observation], distilled_ids: set[str]) -> ReflectorInput:
    """The `<observation>` elements of the user prompt, oldest first, with their refs."""
    result = ReflectorInput()
    fact_number = 0
    blocks = []
    ordered = sorted(observations, key=lambda o: (o.date, o.captured_at, o.id))
    for number, observation in enumerate(ordered, start=1):
        oref = f"O{number}"
        result.refs[oref] = Source(observation.id, observation.session_id)
        result.observation_ids.append(observation.id)
        if observation.session_id not in result.sessions:
            result.sessions.append(observation.session_id)
        label = _attr(observation.session_name or observation.session_id)
        distilled = "yes" if observation.id in distilled_ids else "no"
        code = "" if observation.about_code is None else f' code="{"yes" if observation.about_code else "no"}"'
        lines = [f'<observation ref="{oref}" session="{_attr(label)}" date="{observation.date}" '
                 f'distilled="{distilled}"{code}>']
        for segment in observation.segments:
            if segment.title:
                lines.append(f"#### {' '.join(segment.title.split())}")
            if segment.narrative:
                lines.append(" ".join(segment.narrative.split()))
            for fact in segment.facts:
                if from_tool_output(fact.source_roles):  # tool output never becomes a preference or rule
                    continue
                fact_number += 1
                fref = f"F{fact_number}"
                result.refs[fref] = Source(observation.id, observation.session_id, fact.id or None)
                lines.append(f"{format_fact(fact)} {{{fref}}}")
        if observation.current_task and observation.id not in distilled_ids:
            lines.append("Current task: " + " ".join(observation.current_task.split()))
        lines.append("</observation>")
        blocks.append("\n".join(lines))
    result.text = "\n\n".join(blocks)
    return result
