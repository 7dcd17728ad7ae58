"""docs/cli.md's reference, generated from the commands' own arguments and help strings:
`python -m memory_pipeline.reference` prints it, `--write` puts it between the page's markers;
a test fails when the page is stale. Built from the parser's actions, not from `--help` text, so
the page does not change with Python's help formatting."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memory_pipeline.cli import OLD_NAMES
from memory_pipeline.main import build_parser

PAGE = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
START, END = "<!-- cli:start -->", "<!-- cli:end -->"


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, help, parser) of the listed subcommands; aliases (added without help) are left out."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return [(choice.dest, choice.help or "", action.choices[choice.dest]) for choice in action._choices_actions]
    return []


def _metavar(action: argparse.Action) -> str | None:
    """The name shown for an action's value; a tuple metavar (nargs=N) names each value."""
    return " ".join(action.metavar) if isinstance(action.metavar, tuple) else action.metavar


def _argument(action: argparse.Action) -> str:
    if action.option_strings:
        name = ", ".join(action.option_strings)
        if action.nargs != 0:
            name += " " + (_metavar(action) or ("{" + ",".join(map(str, action.choices)) + "}" if action.choices
                                             else action.dest.upper()))
    else:
        name = _metavar(action) or ("{" + ",".join(map(str, action.choices)) + "}" if action.choices else action.dest)
        name += " …" if action.nargs in ("*", "+") else ""
    return f"`{name}`"


def _meaning(action: argparse.Action) -> str:
    text = (action.help or "").replace("|", "\\|")
    if action.default not in (None, False, argparse.SUPPRESS, []) and action.option_strings and "default" not in text:
        text += f" (default `{action.default}`)"
    return text.strip()


def _section(path: str, help_text: str, parser: argparse.ArgumentParser) -> list[str]:
    children = _subcommands(parser)
    lines = [f"### `{path}`", "", help_text or parser.description or "", ""]
    rows = [a for a in parser._actions if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
            and a.help != argparse.SUPPRESS]  # hidden: what `--help` leaves out
    if rows:
        lines += ["| argument | meaning |", "|---|---|"] + [f"| {_argument(a)} | {_meaning(a)} |" for a in rows] + [""]
    for name, child_help, child in children:
        lines += _section(f"{path} {name}", child_help, child)
    return lines


def render() -> str:
    parser = build_parser()
    lines = ["Commands (`memory-pipeline COMMAND --help` says the same):", ""]
    lines += [f"- [`{name}`](#memory-pipeline-{name}): {text}" for name, text, _ in _subcommands(parser)]
    lines += ["", OLD_NAMES.replace("\n", " ") + ".", ""]
    for name, text, child in _subcommands(parser):
        lines += _section(f"memory-pipeline {name}", text, child)
    return "\n".join(lines).rstrip() + "\n"


def page_with(reference: str, page: str) -> str:
    head, rest = page.split(START + "\n", 1)
    return head + START + "\n" + reference + rest[rest.index(END):]


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        PAGE.write_text(page_with(render(), PAGE.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        print(render(), end="")
