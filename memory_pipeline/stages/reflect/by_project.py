"""Reflecting project by project: one Reflector pass per project, so no proposal mixes two.

A proposal is filed under its project, except a line about the user (the User section, or one
drawn only from user-level facts), which is filed under no project and applies everywhere.
"""

from __future__ import annotations

from memory_pipeline.models import LLMUsage, Observation, ProposalDraft, Reflection
from memory_pipeline.stages.projects import USER


def by_project(observations: list[Observation]) -> dict[str, list[Observation]]:
    """The observations grouped by project, in the order each project first appears."""
    groups: dict[str, list[Observation]] = {}
    for observation in observations:
        groups.setdefault(observation.project, []).append(observation)
    return groups


def file_draft(draft: ProposalDraft, project: str, observations: list[Observation]) -> ProposalDraft:
    """The draft with its project: "" when it is about the user."""
    scopes = {f.id: f.scope for o in observations for f in o.facts}
    cited = [scopes[fid] for fid in draft.source_fact_ids if fid in scopes]
    about_user = draft.section == "User" or (cited and all(scope == USER for scope in cited))
    return draft.model_copy(update={"project": "" if about_user else project})


def combine(day: str, parts: list[tuple[Reflection, list[str]]]) -> tuple[Reflection, list[str]]:
    """One day's reflection from the per-project ones (their proposals, counts and notes together)."""
    if len(parts) == 1:
        return parts[0]
    reflections = [r for r, _ in parts]
    usage = LLMUsage()
    for r in reflections:
        usage = usage + r.usage
    merged = Reflection(
        date=day,
        proposals=[d for r in reflections for d in r.proposals],
        summary="\n\n".join(r.summary for r in reflections if r.summary),
        observation_ids=[i for r in reflections for i in r.observation_ids],
        sessions=list(dict.fromkeys(s for r in reflections for s in r.sessions)),
        redistilled_ids=[i for r in reflections for i in r.redistilled_ids],
        input_tokens=sum(r.input_tokens for r in reflections),
        output_tokens=sum(r.output_tokens for r in reflections),
        guidance_level=max(r.guidance_level for r in reflections),
        attempts=sum(r.attempts for r in reflections),
        usage=usage,
        code_version=reflections[0].code_version,
    )
    return merged, [note for _, notes in parts for note in notes]
