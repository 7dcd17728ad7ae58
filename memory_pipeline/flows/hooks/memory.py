"""The hooks' one door to recall and to the session briefing.

Both live in modules other work provides (`flows.recall.recall`, `flows.brief.build_brief`);
they are imported when first needed, so a missing or failing module means "no related
memories" or "no briefing" plus a note, never a broken hook.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memory_pipeline.config import Settings
from memory_pipeline.errors import MemoryPipelineError
from memory_pipeline.models import RecallHit
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.untrusted import working_folder


@dataclass
class Memories:
    hits: list[RecallHit] = field(default_factory=list)
    note: str | None = None


@dataclass
class Briefing:
    text: str | None = None
    note: str | None = None


def hook_scope(workspace: Workspace, cwd: str | None, settings: Settings):
    """What a hook's session looks at (stages.projects.LookedAt), scoped as `brief` from that folder
    (the rule every door shares: resources.project_tally.scope_for). A payload naming no folder, or
    one that is not a plain absolute path, knows no project: the user's own memories, and a line
    saying which other projects have memories (never every project's)."""
    from memory_pipeline.resources.files.project_tally import scope_for
    from memory_pipeline.resources.projects import resolve_project
    from memory_pipeline.stages.projects import ASKED_BY_FOLDER, UNKNOWN

    if not cwd:
        return scope_for(workspace, UNKNOWN, ASKED_BY_FOLDER, no_project="the session named no folder")
    folder = working_folder(cwd)  # a folder with a line break, or not absolute: no project (not every one)
    if not folder:
        return scope_for(workspace, UNKNOWN, ASKED_BY_FOLDER,
                         no_project="the session's folder is not a plain absolute path")
    asked = resolve_project(folder, settings)
    return scope_for(workspace, asked, ASKED_BY_FOLDER)


def hook_project(workspace: Workspace, cwd: str | None, settings: Settings) -> str | None:
    """The project a hook's recall and briefing see (UNKNOWN: none known, the user's own memories)."""
    return hook_scope(workspace, cwd, settings).project


def find_memories(workspace: Workspace, settings: Settings, query: str, *, limit: int = 5,
                  project: str | None = None) -> Memories:
    """Recall hits for `query` through the recall service; none (with a note) when unavailable."""
    try:
        from memory_pipeline.flows.recall.client import recall
    except ImportError as exc:
        return Memories(note=f"recall is not available ({exc}); no related memories")
    try:
        hits = recall(workspace, query, settings=settings, limit=limit, record=False, use_service=True, project=project)
    except MemoryPipelineError as exc:
        return Memories(note=f"recall failed: {exc}")
    from memory_pipeline.stages.recall.confidence import confidence

    found = confidence(hits)
    if hits and not found.answered:  # nothing close in meaning: give the agent nothing, not noise
        return Memories(note=f"no related memories for {query[:60]!r}: nothing in memory answers it")
    if hits and found.level == "weak":  # unasked, only a likely answer goes into the agent's context
        return Memories(note=f"no related memories for {query[:60]!r}: weak matches only")
    return Memories(hits=[RecallHit.model_validate(h.model_dump()) for h in hits])


def session_briefing(workspace: Workspace, *, budget_tokens: int = 2000, project: str | None = None,
                     scope: str | None = None, max_chars: int | None = None, footer: str | None = None) -> Briefing:
    """The session-start briefing text (MEMORY.md, recent 🔴 observations, the recall pack, the footer),
    built to `max_chars` (the client's cap); none (with a note) when the briefing is unavailable."""
    try:
        from memory_pipeline.flows.brief import build_brief
    except ImportError as exc:
        return Briefing(note=f"the briefing is not available ({exc}); no briefing")
    try:
        brief = build_brief(workspace, budget_tokens=budget_tokens, project=project, scope=scope, max_chars=max_chars,
                            footer=footer)
    except MemoryPipelineError as exc:
        return Briefing(note=f"the briefing failed: {exc}")
    text = (brief.text or "").strip()
    notes = "; ".join(brief.notes_on_files)
    return Briefing(text=text or None, note=notes or (None if text else "the briefing is empty"))
