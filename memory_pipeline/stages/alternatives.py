"""Tools that do one job (pure): an update naming one replaces a fact that says another is used.

"We use pnpm now." says nothing of npm, and shares no word with "We use npm for this repo." but the tool;
MiniLM puts the two at a cosine of 0.46, and "We use pytest." at 0.57 (`derive._updated` needs a shared
word or the replaced value named). What a coding agent's user switches is most often one tool for
another that does the same job: a package manager, a test runner, a database, a CI or deploy system.
So an update that names a tool of one `JOBS` group replaces the project's fact that states the use of
another tool of the same group, in a frame of use ("we use npm", "tests run on Jest", "deploys go
through Jenkins", "logs go to Datadog"). A fact that only mentions the tool ("npm install fails with
EACCES on CI", "Never run jest with --watch in CI", "The Jenkins job times out") is about something
else and stays.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memory_pipeline.stages.offline.observer_update import replaced_terms
from memory_pipeline.stages.tool_jobs import JOBS

# the jobs of each name (Jenkins does two); every name in one pattern, the longest first ("grafana loki", not "grafana")
_JOBS_OF: dict[str, tuple[str, ...]] = {
    tool: tuple(job for job, tools in JOBS.items() if tool in tools) for tools in JOBS.values() for tool in tools}
_ANY_TOOL = re.compile(r"(?<![\w.-])(?:{})(?![\w-])".format(
    "|".join(re.escape(t).replace(r"\ ", r"\s+") for t in sorted(_JOBS_OF, key=len, reverse=True))), re.IGNORECASE)
# the frame of use before a tool's name: "we use npm", "run on Jest", "go through Jenkins", "go to Datadog",
# "is on Postgres 16", "built with webpack", "deployed via Argo CD"; not a bare "in" or "with" ("a bug in webpack")
_USE = re.compile(r"\b(?:use[sd]?|using|(?:run|runs|running|ran|is|are|'s|'re|was|were|live|lives|sits?|hosted)\s+"
                  r"(?:on|in|under|with)|(?:go|goes|went|ship|ships|deploy|deploys|deployed)\s+(?:through|to|via|with|"
                  r"on)|(?:built|managed|deployed|installed|hosted|tested|bundled|linted|formatted|written)\s+"
                  r"(?:with|by|on|via|through|in))\s+(?:(?:the|our|a|an)\s+)?$", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _named(text: str) -> tuple[tuple[str, str, bool], ...]:
    """(job, name, used) of each tool `text` names: the name lowercased, `used` when a frame of use (`_USE`) comes
    before it. Cached: a MEMORY.md line is read against every pending proposal, a ledger fact against each update."""
    found = []
    for match in _ANY_TOOL.finditer(text):
        name, used = " ".join(match.group(0).lower().split()), bool(_USE.search(text[:match.start()][-40:]))
        found += [(job, name, used) for job in _JOBS_OF[name]]
    return tuple(found)


def tools_named(text: str) -> dict[str, set[str]]:
    """The tools `text` names, by job: {"package manager": {"pnpm"}}, names lowercased."""
    found: dict[str, set[str]] = {}
    for job, name, _ in _named(text):
        found.setdefault(job, set()).add(name)
    return found


def jobs_named(text: str) -> frozenset[str]:
    """The jobs of the tools `text` names."""
    return frozenset(job for job, _, _ in _named(text))


def _used(text: str, job: str) -> set[str]:
    """The tools of `job` that `text` says are used: each name after a frame of use (`_USE`)."""
    return {name for of, name, used in _named(text) if used and of == job}


def states_use(text: str) -> bool:
    """Whether `text` says a tool of a known job is used ("Our tests run on Jest", "We use pnpm now"): a statement
    of the setup that stands in few words."""
    return any(used for _, _, used in _named(text))


def replaces_alternative(update: str, old: str) -> bool:
    """Whether the update `update` names a tool in place of one that `old` says is used: a tool of one job
    in each, none of the update's named in `old`. An update that says which tool of the job it replaces
    ("We dropped npm for pnpm": `observer_update.replaced_terms`) replaces that one only, found by its name."""
    new_tools, old_tools, replaced = tools_named(update), tools_named(old), replaced_terms(update)
    for job, names in new_tools.items():
        was = _used(old, job)
        if was and not names & old_tools.get(job, set()) and not names & replaced:
            return True
    return False
