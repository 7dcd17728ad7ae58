"""Adding and removing this project's hooks in a Claude Code settings.json document (pure).

Claude Code's schema: `{"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command",
"command": "...", "timeout": seconds}]}]}}`; `matcher` is left out for events that take none.
Our entries are recognised by their command (it ends with `hook claude-code` and names
memory-pipeline), so install replaces only them and uninstall removes only them; everything else
in the document, other hooks included, is kept as it was.
"""

from __future__ import annotations

import copy
import re
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
_OURS = re.compile(r"memory[-_]pipeline\S*\s+hook\s+claude-code\s*$")


def is_our_command(entry: object) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("command"), str) and bool(_OURS.search(entry["command"]))


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
    if not _OURS.search(command):
        raise BadInputError(f"not a memory-pipeline hook command: {command!r}")
    result = remove_our_hooks(settings)
    table = result.setdefault("hooks", {})
    _hooks_table(result)
    for event, (matcher, timeout) in HOOK_EVENTS.items():
        group: dict[str, Any] = {"matcher": matcher} if matcher else {}
        group["hooks"] = [{"type": "command", "command": command, "timeout": timeout}]
        table.setdefault(event, []).append(group)
    return result
