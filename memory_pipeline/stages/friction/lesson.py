"""The lesson of a correction that followed a failing command, pure.

"`pip install httpx` failed; the user: No, don't use pip here. This repo uses uv: run `uv sync` and
`uv run pytest`." is one piece of friction whose lesson is "Use uv (`uv sync`, `uv run pytest`),
not pip": the program the user named instead of the failed one, the commands of that program the
user named (else the one that worked after the correction), and the failed program.
"""

from __future__ import annotations

import re

# "use uv", "uses uv", "we use `uv`", "with uv", "uv instead", "switch to uv"
_INSTEAD = re.compile(r"\b(?:uses?|using|with|switch(?:ed)? to|prefer|run (?:it )?(?:with|through|via))\s+`?"
                      r"(?P<tool>[a-z][\w.+-]*)`?|`?(?P<before>[a-z][\w.+-]*)`?,? instead\b", re.IGNORECASE)
_CODE = re.compile(r"`([^`]{2,80})`")
_NOT_TOOLS = frozenset("a an the it this that them here there uv's its our my your".split())


def program(command: str) -> str:
    """The program a command runs: its first word (`pip` of `pip install httpx`)."""
    words = command.split()
    return words[0] if words else ""


def names_program(text: str, name: str) -> bool:
    """Whether a message names a program as a word (`pip`, not `pipeline`)."""
    return bool(name) and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.IGNORECASE) is not None


def alternative(text: str, failed: str, then: str = "") -> str:
    """The program the user named in place of the failed one; else the program that worked after."""
    for match in _INSTEAD.finditer(text):
        tool = (match.group("tool") or match.group("before")).lower()
        if tool != failed.lower() and tool not in _NOT_TOOLS:
            return tool
    worked = program(then)
    return worked if worked and worked != failed else ""


def lesson_of(text: str, failed_command: str, then: str = "") -> str:
    """"Use uv (`uv sync`, `uv run pytest`), not pip", or "" when the message names no alternative."""
    failed = program(failed_command)
    tool = alternative(text, failed, then)
    if not tool:
        return ""
    commands = [c for c in dict.fromkeys(_CODE.findall(text)) if program(c).lower() == tool]
    if not commands and program(then).lower() == tool:
        commands = [then]
    shown = f" ({', '.join(f'`{c}`' for c in commands[:3])})" if commands else ""
    return f"Use {tool}{shown}, not {failed}"
