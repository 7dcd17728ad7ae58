"""Configuration drift, pure: the same setting, version or tool choice stated differently over time.

A setting statement is (key, value) read from what the user said:
- a version: a known runtime or tool with a number ("use Node 18", "node 20", "Python 3.12"), or
  any name pinned with @ / == ("react@18", "pydantic==2.7");
- a key set to a value: `KEY=value`, "set timeout to 30", "`workers: 4`", "port 6380";
- a tool choice within one family ("use pnpm", "switch to yarn"): the family is the key. A tool
  named after "not" / "instead of" / "don't" is the one rejected, not chosen.
Drift is one key with two or more values: reported when the values were stated in at least
`min_sessions` sessions, or when the value changed back and forth (A → B → A) in any session.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from memory_pipeline.stages.friction.findings import IMPACT, Finding
from memory_pipeline.stages.friction.said import Said
from memory_pipeline.stages.friction.signals import clip

VERSIONED = frozenset("""node nodejs python python3 java jdk go golang ruby rust rustc php perl dotnet .net kotlin
    scala swift xcode elixir erlang postgres postgresql psql mysql mariadb redis mongodb mongo sqlite elasticsearch
    react vue angular next nextjs nuxt svelte typescript ts webpack vite tailwind django flask fastapi rails
    spring laravel pydantic numpy pandas torch pytorch tensorflow cuda gcc clang llvm cmake gradle maven npm pnpm
    yarn bun deno ubuntu debian alpine centos fedora docker kubernetes k8s helm terraform ansible eslint prettier
    jest vitest pytest mypy ruff black sdk api ios android macos windows electron bootstrap jquery""".split())
FAMILIES = {
    "JavaScript package manager": frozenset({"npm", "pnpm", "yarn", "bun"}),
    "Python package manager": frozenset({"pip", "uv", "poetry", "pipenv", "conda"}),
    "JavaScript test runner": frozenset({"jest", "vitest", "mocha", "ava"}),
    "Python test runner": frozenset({"pytest", "unittest", "nose2"}),
    "Python formatter": frozenset({"black", "yapf", "autopep8"}),
}
_TOOL_FAMILY = {tool: family for family, tools in FAMILIES.items() for tool in tools}
_VERSION = re.compile(r"(?<![\w./-])(?P<key>[A-Za-z][\w.+#-]*?)(?P<sep>\s+v?|\s*@\s*|\s*[=>~^]=\s*|\s+version\s+|v)"
                      r"(?P<value>\d+(?:\.\d+){0,2}(?:\.x)?)(?![\w.-]*\d)", re.IGNORECASE)
_ASSIGN = re.compile(r"(?<![\w.-])`?(?P<key>[A-Z][A-Z0-9_]{2,})`?\s*=\s*`?(?P<value>[\w./:@-]+)`?"
                     r"|\bset\s+`?(?P<key2>[\w.-]{2,40})`?\s+to\s+`?(?P<value2>[\w./:@-]+)`?"
                     r"|`(?P<key3>[\w.-]{2,40})\s*[:=]\s*(?P<value3>[^`\s]{1,40})`"
                     r"|\b(?P<key4>port)\s+(?P<value4>\d{2,5})\b", re.IGNORECASE)
_CHOICE = re.compile(r"\b(?:(?P<neg>don'?t|do not|never|not|stop|instead of)\s+(?:use\s+|using\s+|with\s+)?)?"
                     r"(?:use|using|switch(?:ed)? to|go with|went with|run (?:it|them|this) with|with|via)\s+"
                     r"`?(?P<tool>[a-z0-9]+)`?\b", re.IGNORECASE)
_REJECTED = re.compile(r"\b(?:not|instead of|rather than|over)\s+`?(?P<tool>[a-z0-9]+)`?", re.IGNORECASE)
_LEFT_BEHIND = re.compile(r"\b(?:not|from|instead of|rather than|than|over)\s+$", re.IGNORECASE)
MIN_DRIFT_SESSIONS = 2


@dataclass(frozen=True)
class Setting:
    key: str
    value: str
    said: Said


def settings_in(text: str) -> list[tuple[str, str]]:
    """The (key, value) settings a sentence states, in order, each key once."""
    found: dict[str, str] = {}
    for match in _VERSION.finditer(text):
        key, sep = match.group("key").lower().rstrip(".-"), match.group("sep").strip().lower()
        if _LEFT_BEHIND.search(text[max(0, match.start() - 16):match.start()]):
            continue  # "from Node 18 to …", "not Node 18": the value given up
        if key in VERSIONED or sep in ("@", "==", ">=", "~=", "^="):
            found.setdefault(f"{key} version", match.group("value").lower().removesuffix(".x"))
    for match in _ASSIGN.finditer(text):
        key = next(k for k in (match.group("key"), match.group("key2"), match.group("key3"), match.group("key4")) if k)
        value = next(v for v in (match.group("value"), match.group("value2"), match.group("value3"),
                                 match.group("value4")) if v)
        found.setdefault(key.lower(), value.strip(".,;'\"").lower())
    rejected = {m.group("tool").lower() for m in _REJECTED.finditer(text)}
    for match in _CHOICE.finditer(text):
        tool = match.group("tool").lower()
        family = _TOOL_FAMILY.get(tool)
        if family and not match.group("neg") and tool not in rejected:
            found.setdefault(family, tool)
    return list(found.items())


def setting_statements(statements: list[Said]) -> list[Setting]:
    return [Setting(key, value, said) for said in statements for key, value in settings_in(said.text)]


def _runs(settings: list[Setting]) -> list[list[Setting]]:
    """Consecutive statements of the same value grouped: the value's runs in time order."""
    runs: list[list[Setting]] = []
    for setting in sorted(settings, key=lambda s: s.said.when):
        if runs and runs[-1][0].value == setting.value:
            runs[-1].append(setting)
        else:
            runs.append([setting])
    return runs


def back_and_forth(runs: list[list[Setting]]) -> bool:
    values = [run[0].value for run in runs]
    return any(value in values[:index - 1] for index, value in enumerate(values) if index >= 2)


def drift_finding(key: str, runs: list[list[Setting]]) -> Finding:
    members = [s for run in runs for s in run]
    sessions = list(dict.fromkeys(s.said.session_id for s in members))
    history = " → ".join(f"{run[0].value} ({', '.join(sorted({s.said.day for s in run}))})" for run in runs)
    latest = runs[-1][0].value
    values = sorted({s.value for s in members}, key=[r[0].value for r in runs].index)
    changes = len(runs) - 1
    title = clip(f"Settle the {key}: {' or '.join(values)}", 70)
    draft = (f"The {key} was stated differently {changes} time{'s' if changes != 1 else ''}: {history}. "
             f"Record the one to use (latest: {latest}) and say so here when it changes.")
    return Finding(kind="drift", pattern=f"{key}: {' / '.join(values)}", sessions=sessions,
                   occurrences=len(members), impact=IMPACT["drift"],
                   severity=max(len(sessions), changes) * IMPACT["drift"],
                   evidence=[s.said.evidence() for s in members], title=title, draft=draft, section="Lessons")


def find_drift(statements: list[Said], *, min_sessions: int = MIN_DRIFT_SESSIONS) -> list[Finding]:
    """Every setting stated with different values across `min_sessions` sessions of one project, or
    back and forth (Node 18 in one repository and Node 20 in another is not drift)."""
    by_key: dict[tuple[str, str], list[Setting]] = defaultdict(list)
    for setting in setting_statements(statements):
        by_key[(setting.said.project, setting.key)].append(setting)
    findings = []
    for (_, key), settings in sorted(by_key.items()):
        runs = _runs(settings)
        if len(runs) < 2:
            continue
        sessions = {s.said.session_id for s in settings}
        if len(sessions) >= min_sessions or back_and_forth(runs):
            findings.append(drift_finding(key, runs))
    return sorted(findings, key=lambda f: (-f.severity, f.pattern))
