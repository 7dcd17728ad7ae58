"""`memory-pipeline hooks install claude-code [--project DIR | --user] [--uninstall]`."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import sys
from pathlib import Path

from memory_pipeline.cli.common import add_json_flag, print_json
from memory_pipeline.config import workspace_override
from memory_pipeline.errors import BadInputError


HELP = "add (or remove) the memory hooks in Claude Code's settings.json"


def add_arguments(parser) -> None:
    parser.add_argument("agent", choices=["claude-code"])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--project", type=Path, metavar="DIR", help="DIR/.claude/settings.json (default: current folder)")
    where.add_argument("--user", action="store_true", help="~/.claude/settings.json")
    parser.add_argument("--uninstall", action="store_true", help="remove only this project's hook entries")
    add_json_flag(parser)
    parser.set_defaults(handler=run_install_hooks)


def settings_path(project: Path | None, user: bool) -> Path:
    if user:
        return Path("~/.claude/settings.json").expanduser()
    return (project or Path.cwd()).expanduser().resolve() / ".claude" / "settings.json"


def hook_command() -> str:
    """The absolute path of the installed console script (with the workspace, when one is set)."""
    beside = Path(sys.executable).parent / "memory-pipeline"
    found = str(beside) if beside.is_file() else shutil.which("memory-pipeline")
    base = shlex.quote(found) if found else f"{shlex.quote(sys.executable)} -m memory_pipeline.cli"
    workspace = workspace_override()
    prefix = f"MEMORY_WORKSPACE={shlex.quote(str(Path(workspace).expanduser().resolve()))} " if workspace else ""
    return f"{prefix}{base} hook claude-code"


def read_settings(path: Path) -> dict:
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return {}
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInputError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); left unchanged") from None
    if not isinstance(document, dict):
        raise BadInputError(f"{path} must hold a JSON object; left unchanged")
    return document


def write_settings(path: Path, document: dict) -> None:
    """Atomic replace, keeping the file's permissions when it existed."""
    from memory_pipeline.resources.workspace import atomic_write_text

    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644
    atomic_write_text(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    os.chmod(path, mode)


def run_install_hooks(args) -> int:
    from memory_pipeline.stages.hooks.settings import HOOK_EVENTS, add_our_hooks, remove_our_hooks

    path = settings_path(args.project, args.user)
    before = read_settings(path)
    command = hook_command()
    after = remove_our_hooks(before) if args.uninstall else add_our_hooks(before, command)
    changed = after != before
    if changed and (path.exists() or not args.uninstall):
        write_settings(path, after)
    if args.json:
        print_json({"settings": str(path), "changed": changed, "uninstall": args.uninstall,
                    "command": None if args.uninstall else command, "events": list(HOOK_EVENTS)})
    elif args.uninstall:
        print(f"{'removed memory-pipeline hooks from' if changed else 'no memory-pipeline hooks in'} {path}")
    else:
        print(f"{'installed' if changed else 'already installed:'} {', '.join(HOOK_EVENTS)} → {command}")
        print(f"in {path}")
    return 0
