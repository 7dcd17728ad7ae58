"""Which project a memory belongs to, and which memories a session may see.

A project is named after its repository: the folder holding the main worktree's `.git` (so every
git worktree of one repository is one project), else the session's folder. The name is what a
user types (`--project memory-pipeline`); two repositories with one folder name are one project
unless MEMORY_PROJECT_MAP tells them apart.

Every record keeps its project. A fact is either about the project (the default) or about the
user (`scope == "user"`): a first-person preference the user stated that names nothing of the
project ("I prefer short answers"). A session in project A sees A's memories, the user's, and the
memories whose project is unknown (plain-text imports without `--project`); never B's.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from pathlib import PurePath

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import Observation
from memory_pipeline.stages.offline.distil import ABOUT_THE_WORK
from memory_pipeline.stages.offline.observer_standing import is_answer_style
from memory_pipeline.stages.provenance import user_typed

UNKNOWN = ""  # no project known: a plain-text import without --project
USER, PROJECT = "user", "project"
SCOPES = (PROJECT, USER)
# folders a worktree lives under by convention, when the worktree itself is gone: `<repo>/.worktrees/x`,
# `<repo>/.claude/worktrees/x`, `<repo>.worktrees/x`, `<repo>-worktrees/x`
_WORKTREE_PARENTS = re.compile(r"^(?:\.?worktrees?|\.claude-worktrees)$", re.IGNORECASE)
_WORKTREE_SUFFIX = re.compile(r"^(?P<repo>.+?)[.-]worktrees?$", re.IGNORECASE)
_SAFE_NAME = re.compile(r"^[\w][\w.\-+@ ]{0,99}$")


@dataclass(frozen=True)
class ProjectScope:
    """What a reader may see: `project` (None = every project) plus the user's own memories;
    `note` a line to say with it (a folder's project with no memories yet: LookedAt.note)."""

    project: str | None = None
    note: str | None = None

    @property
    def everything(self) -> bool:
        return self.project is None

    def admits(self, project: str | None, scope: str | None = PROJECT) -> bool:
        if self.project is None or scope == USER or not project:
            return True
        return project == self.project

    def describe(self) -> str:
        base = "all projects" if self.project is None else f"{_named(self.project)} + user-level memories"
        return f"{base} ({self.note})" if self.note else base


ALL_PROJECTS = ProjectScope(None)

# Where a reader's project came from: `--all-projects`, `--project NAME`, or the current folder.
ASKED_ALL, ASKED_BY_NAME, ASKED_BY_FOLDER = "all-projects", "named", "folder"


@dataclass(frozen=True)
class LookedAt:
    """What a recall, brief or pack looked at, said to the user: `project` (None: every project),
    the project the folder or `--project` named, and one line saying which and why."""

    project: str | None
    asked: str | None
    why: str
    other_hits: int | None = None  # hits in other projects, when the project had none
    note: str | None = None  # the folder's project has no memories yet: what is shown instead, and how to look wider

    def as_dict(self) -> dict:
        return {"project": self.project, "asked": self.asked, "why": self.why, "other_hits": self.other_hits}


def _named(project: str) -> str:
    return f"project {project}" if project else "no project"


def choose_scope(asked: str | None, how: str, has_memories: bool, others: tuple[str, ...] | list[str] = (),
                 widen: str = "--all-projects", no_project: str = "this folder is in no project") -> LookedAt:
    """The scope every read door uses (recall, brief, pack, the hooks, the MCP tools): the one rule.

    `asked` is the project the folder or `--project` named (None with `--all-projects`), `how` how
    it was asked, `has_memories` whether that project has any, `others` the other projects that
    do, `widen` how the reader looks at every project (`--all-projects`, MCP `all_projects=true`).
    A folder's project stays itself even with no memories (a new repository): it is shown the
    user's own memories only, and told which other projects exist and how to look; another
    project's facts, MEMORY.md sections and rules are never shown as this one's. No project known
    (`asked` is UNKNOWN: a folder in none, a hook naming no folder) is the same case; `no_project`
    says why there is none."""
    if how == ASKED_ALL or asked is None:
        return LookedAt(None, None, f"looked at all projects ({widen})")
    if how == ASKED_BY_FOLDER and (not asked or not has_memories):
        whose = f"this folder's project {asked} has no memories yet" if asked else no_project
        why = f"{whose}: showing your user-level memories only{_others(others, widen)}"
        return LookedAt(asked, asked, why, note=why)
    origin = "this folder's project" if how == ASKED_BY_FOLDER else "project"
    return LookedAt(asked, asked, f"looked at {origin} {asked or '(none)'} + your user-level memories")


def _others(others: tuple[str, ...] | list[str], widen: str) -> str:
    names = sorted(o for o in others if o)
    if not names:
        return ""
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    plural = "s" if len(names) != 1 else ""
    return f"; {len(names)} other project{plural} ha{'ve' if plural else 's'} memories ({shown}): {widen} to look"


def with_other_hits(looked: LookedAt, other_hits: int, limit: int) -> LookedAt:
    """`looked` after its project gave no hit and every project gave `other_hits` (up to `limit`)."""
    count = f"{other_hits}+" if other_hits >= limit else str(other_hits)
    found = (f"{count} hit{'s' if other_hits != 1 else ''} in other projects: add --all-projects to see them"
             if other_hits else "none in other projects either")
    empty = " (no memories yet)" if looked.note else ""
    return LookedAt(looked.project, looked.asked, f"no hits in {_named(looked.project or '')}{empty}; {found}", other_hits,
                    looked.note)


def check_project(name: str) -> str:
    """A project name as typed by a user (`--project`), or BadInputError."""
    cleaned = (name or "").strip()
    if not _SAFE_NAME.match(cleaned) or ".." in cleaned:
        raise BadInputError(f"bad project name {name!r}: use letters, digits, '.', '_', '-', '+', '@' or spaces")
    return cleaned


def parse_project_map(text: str | None) -> list[tuple[str, str]]:
    """MEMORY_PROJECT_MAP: `PATTERN=NAME` pairs separated by `;` or newlines, first match wins.
    A pattern is a glob on the session's folder (`/home/me/src/api*`, `*/worktrees/shop-*`)."""
    pairs = []
    for item in re.split(r"[;\n]", text or ""):
        if not item.strip():
            continue
        pattern, sep, name = item.rpartition("=")
        if not sep or not pattern.strip():
            raise BadInputError(f"MEMORY_PROJECT_MAP entry {item.strip()!r} is not PATTERN=NAME")
        pairs.append((pattern.strip(), check_project(name)))
    return pairs


def mapped_project(folder: str, mapping: list[tuple[str, str]]) -> str | None:
    path = folder.rstrip("/") or "/"
    for pattern, name in mapping:
        if fnmatch.fnmatchcase(path, pattern.rstrip("/") or "/") or fnmatch.fnmatchcase(path + "/", pattern):
            return name
    return None


def name_of(folder: str) -> str:
    """A folder's project name: its last part, or UNKNOWN for `/` and empty paths."""
    parts = [p for p in PurePath(folder).parts if p not in ("/", "\\")]
    return parts[-1] if parts else UNKNOWN


def project_from_path(folder: str) -> str:
    """The project of a folder that no longer exists: the repository a conventional worktree path
    names (`~/src/shop/.worktrees/fix-login` → shop, `~/src/shop-worktrees/fix` → shop), else its name."""
    parts = [p for p in PurePath(folder).parts if p not in ("/", "\\")]
    for position in range(len(parts) - 2, -1, -1):
        part = parts[position]
        if _WORKTREE_PARENTS.match(part) and position >= 1:
            parent = parts[position - 1]
            return parts[position - 2] if parent == ".claude" and position >= 2 else parent
        suffix = _WORKTREE_SUFFIX.match(part)
        if suffix:
            return suffix.group("repo")
    return name_of(folder)


# --- user-level facts -----------------------------------------------------------------------

# first person, about how the user wants to be worked with (the offline Observer quotes the user:
# `User stated: "I prefer …"`; a model paraphrases: "User prefers …")
_FIRST_PERSON = re.compile(
    r"\b(?:i (?:prefer|like|love|hate|dislike|don'?t like|want you to|always want|never want)"
    r"|i(?: would|'d) (?:rather|prefer|like)|my preference|call me|my name is)\b", re.IGNORECASE)
_THIRD_PERSON = re.compile(
    r"^(?:the )?user(?:'s)? (?:prefers|likes|loves|dislikes|hates|wants (?:answers|responses|replies|you|the agent)"
    r"|would rather|preference|asked to be called|is called|name is)\b", re.IGNORECASE)
_EVERYWHERE = re.compile(r"\b(?:in (?:all|every|any) (?:of )?(?:my |our )?(?:projects?|repos?|repositories)|across projects"
                         r"|everywhere|in general|globally)\b", re.IGNORECASE)
_HERE = re.compile(r"\b(?:this|the|our) (?:project|repo|repository|codebase|code ?base|app|service|package)\b"
                   r"|\bin here\b|\bwe\b", re.IGNORECASE)
# something that belongs to one project: a path, a file name, a code identifier, a command line
_PROJECT_THING = re.compile(
    r"(?:[\w.-]+/[\w./-]+|\b[\w-]+\.(?:py|ts|tsx|js|jsx|go|rs|rb|java|kt|md|json|toml|ya?ml|sql|sh|cfg|ini|lock)\b"
    r"|\b[a-z]+_[a-z0-9_]+\b|\b[a-z]+[A-Z]\w+\b|`[^`]+`|--[\w-]+)")


def fact_scope(text: str, roles: list[str] | tuple[str, ...] = ()) -> str:
    """USER for a preference the user stated about themselves that names nothing of the project,
    else PROJECT. Only the user's own words can be user-level: text from tool output, the agent or
    a compaction summary never is (a web page cannot set a preference for every project), nor is a
    fact whose sources are unknown."""
    if not user_typed(roles):
        return PROJECT
    body = text.split(":", 1)[1] if text.lower().startswith(("user stated:", "user corrected the agent:")) else text
    # "Please keep your answers short": how they want to be answered, whatever the project
    personal = _FIRST_PERSON.search(body) or _THIRD_PERSON.search(text.strip()) or is_answer_style(body)
    if _EVERYWHERE.search(body) and (personal or re.search(r"\b(?:always|never|prefer)", body, re.IGNORECASE)):
        return USER
    if not personal or _HERE.search(body) or _PROJECT_THING.search(body) or ABOUT_THE_WORK.search(body):
        return PROJECT
    return USER


def scoped(observation: Observation, project: str) -> Observation:
    """The observation filed under `project`, each fact's scope decided by `fact_scope`."""
    segments = [segment.model_copy(update={"facts": [
        fact.model_copy(update={"scope": fact_scope(fact.text, fact.source_roles)}) for fact in segment.facts]})
        for segment in observation.segments]
    return observation.model_copy(update={"project": project, "segments": segments})
