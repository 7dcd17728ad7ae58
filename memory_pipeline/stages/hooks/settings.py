"""Adding and removing this project's hooks in a Claude Code settings.json document (pure).

Claude Code's schema: `{"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command",
"command": "...", "timeout": seconds}]}]}}`; `matcher` is left out for events that take none.
Our entries are recognised by their whole command line, in one of the shapes this tool has written
(`our_command_shape`), so install replaces only them and uninstall removes only them; everything
else in the document, other hooks included (one that merely ends in `hook claude-code` too), is
kept as it was.
"""

from __future__ import annotations

import copy
import re
import shlex
from typing import Any

from memory_pipeline.errors import BadInputError

# event → (matcher or None, timeout in seconds)
HOOK_EVENTS: dict[str, tuple[str | None, int]] = {
    "PreCompact": ("manual|auto", 60),
    "SessionStart": ("startup|resume|clear|compact", 60),
    "SessionEnd": (None, 30),
    "UserPromptSubmit": (None, 10),
    "Stop": (None, 10),
}
_WORKSPACE = re.compile(r"^MEMORY_WORKSPACE=[^=]+$")
_HOOK_ENTRY = re.compile(r"(?:^|/)memory_pipeline/hook_entry\.py$")
_CONSOLE_SCRIPT = re.compile(r"(?:^|/)memory-pipeline$")


def our_command_shape(command: str) -> bool:
    """True for exactly the hook command lines this tool writes or wrote, each with an optional
    `MEMORY_WORKSPACE=…` first: `PYTHON -S …/memory_pipeline/hook_entry.py hook claude-code` (now),
    `…/memory-pipeline hook claude-code` and `PYTHON -m memory_pipeline.cli hook claude-code`
    (earlier versions)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if words and _WORKSPACE.match(words[0]):
        words = words[1:]
    if words[-2:] != ["hook", "claude-code"]:
        return False
    program = words[:-2]
    return (len(program) == 3 and program[1] == "-S" and bool(_HOOK_ENTRY.search(program[2]))
            or len(program) == 1 and bool(_CONSOLE_SCRIPT.search(program[0]))
            or len(program) == 3 and program[1:] == ["-m", "memory_pipeline.cli"])


def is_our_command(entry: object) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("command"), str) and our_command_shape(entry["command"])


def _hooks_table(settings: dict[str, Any]) -> dict[str, Any]:
    table = settings.get("hooks", {})
    if not isinstance(table, dict):
        raise BadInputError(f"settings 'hooks' is a {type(table).__name__}, expected an object")
    for event, groups in table.items():
        if not isinstance(groups, list):
            raise BadInputError(f"settings hooks.{event} is a {type(groups).__name__}, expected a list")
    return table


def remove_our_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    """A copy of `settings` without our hook commands; groups and events left empty by that go too."""
    result = copy.deepcopy(settings)
    if "hooks" not in result:
        return result
    table = _hooks_table(result)
    for event in list(table):
        kept_groups = []
        for group in table[event]:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                kept_groups.append(group)
                continue
            commands = [h for h in group["hooks"] if not is_our_command(h)]
            if len(commands) == len(group["hooks"]):
                kept_groups.append(group)
            elif commands:
                kept_groups.append({**group, "hooks": commands})
        if kept_groups:
            table[event] = kept_groups
        elif table[event]:  # only our entries were there
            del table[event]
    if not table and settings.get("hooks"):
        del result["hooks"]
    return result


def add_our_hooks(settings: dict[str, Any], command: str) -> dict[str, Any]:
    """A copy of `settings` with one entry per hook event running `command` (replacing ours)."""
    if not our_command_shape(command):
        raise BadInputError(f"not a memory-pipeline hook command: {command!r}")
    result = remove_our_hooks(settings)
    table = result.setdefault("hooks", {})
    _hooks_table(result)
    for event, (matcher, timeout) in HOOK_EVENTS.items():
        group: dict[str, Any] = {"matcher": matcher} if matcher else {}
        group["hooks"] = [{"type": "command", "command": command, "timeout": timeout}]
        table.setdefault(event, []).append(group)
    return result


EXCLUDE_NOTE = "# memory-pipeline: personal Claude Code settings (hooks install --project), never committed"


def exclude_rule(relative_folder: str) -> str:
    """The git ignore rule for the settings.local.json of a project `relative_folder` below the
    repository's top ("" for the top itself), anchored so it names that one file."""
    folder = "/".join(part for part in relative_folder.split("/") if part)
    return f"/{folder + '/' if folder else ''}.claude/settings.local.json"


def add_exclude_rule(text: str, rule: str) -> str:
    """`.git/info/exclude` with our note and rule appended (once)."""
    if rule in text.splitlines():
        return text
    base = text if not text or text.endswith("\n") else text + "\n"
    return f"{base}{EXCLUDE_NOTE}\n{rule}\n"


def remove_exclude_rule(text: str, rule: str) -> str:
    """`.git/info/exclude` without our rule and the note just before it."""
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    for line in lines:
        if line.rstrip("\n") == rule:
            if kept and kept[-1].rstrip("\n") == EXCLUDE_NOTE:
                kept.pop()
            continue
        kept.append(line)
    return "".join(kept)
