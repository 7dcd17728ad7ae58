"""`memory-pipeline hooks install claude-code|codex|pi [--project [DIR] | --user] [--uninstall] [--no-mcp]`
(the old name `install-hooks` still works).

Claude Code gets the hooks and the memory MCP server, for the user by default (nothing is written
into any repository) or with `--project` for one project in files that are not shared; Codex gets
the MCP server; pi gets an extension (briefing, compaction and shutdown events). Where each goes:
flows/hooks/install.py.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from memory_pipeline.cli.common import add_json_flag, print_json
from memory_pipeline.cli.hooks.mcp import cli_command, mcp_entry
from memory_pipeline.config import workspace_override
from memory_pipeline.errors import BadInputError

HELP = "add (or remove) the memory hooks and MCP server in an agent's config (for the user by default)"


def add_arguments(parser) -> None:
    parser.add_argument("agent", choices=["claude-code", "codex", "pi"])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true",
                       help="for the user, in every project (the default): ~/.claude/settings.json and ~/.claude.json")
    where.add_argument("--project", type=Path, nargs="?", const=Path("."), metavar="DIR",
                       help="for one project only (default: the current folder), in files that are not shared: "
                            "DIR/.claude/settings.local.json and the project's local scope in ~/.claude.json")
    parser.add_argument("--uninstall", action="store_true",
                        help="remove only our entries (a file left empty is removed)")
    parser.add_argument("--no-mcp", action="store_true", help="leave the memory MCP server out (hooks only)")
    add_json_flag(parser)
    parser.set_defaults(handler=run_install_hooks)


def hook_argv() -> list[str]:
    """This Python without site (`-S`: no site-packages scan, ~40 ms less per call) running the
    stdlib-only hook door, memory_pipeline/hook_entry.py, by its absolute path."""
    from memory_pipeline import hook_entry

    return [sys.executable, "-S", str(Path(hook_entry.__file__).resolve()), "hook", "claude-code"]


def hook_command() -> str:
    """The hook's command line (with the workspace, when one is set). Commands written by earlier
    versions (`…/memory-pipeline hook claude-code`) still work: they take the same door."""
    workspace = workspace_override()
    prefix = f"MEMORY_WORKSPACE={shlex.quote(str(Path(workspace).expanduser().resolve()))} " if workspace else ""
    return prefix + " ".join(shlex.quote(word) for word in hook_argv())


def home_folder() -> Path:
    return Path("~").expanduser()


def run_install_hooks(args) -> int:
    from memory_pipeline.flows.hooks.install import apply_plan, plan_claude_code, plan_codex, plan_pi

    if args.agent in ("codex", "pi") and args.project:
        raise BadInputError(f"{args.agent}: hooks install writes only your own settings in your home folder; "
                            "leave out --project")
    if args.agent == "pi":
        if args.no_mcp:
            raise BadInputError("pi: hooks install writes its extension only (no MCP server): leave out --no-mcp")
        workspace = workspace_override()
        plan = plan_pi(home=home_folder(), argv=cli_command(), uninstall=args.uninstall,
                       workspace=str(Path(workspace).expanduser().resolve()) if workspace else None)
    elif args.agent == "codex":
        if args.no_mcp:
            raise BadInputError("for codex, hooks install registers the MCP server only: --no-mcp leaves nothing to do")
        plan = plan_codex(home=home_folder(), server=mcp_entry(), uninstall=args.uninstall)
    else:
        project = args.project.expanduser().resolve() if args.project is not None else None
        if project is not None and not project.is_dir():
            raise BadInputError(f"{project} is not a folder")
        plan = plan_claude_code(home=home_folder(), project=project, hook_command=hook_command(),
                                server=None if args.no_mcp else mcp_entry(), uninstall=args.uninstall)
    apply_plan(plan)
    if args.agent == "claude-code" and not args.uninstall:  # so the first hook finds it and never waits
        from memory_pipeline.resources.workspace import Workspace

        Workspace(args.settings.workspace).create()
    if args.json:
        print_json(plan_summary(plan, args.uninstall))
    else:
        print_plan(plan, args.uninstall)
    return 0


def plan_summary(plan, uninstall: bool) -> dict:
    from memory_pipeline.flows.hooks.install import HOOKS, SERVER
    from memory_pipeline.stages.hooks.settings import HOOK_EVENTS

    hooks, server = plan.first(HOOKS), plan.first(SERVER)
    summary: dict = {"agent": plan.agent, "scope": plan.scope, "uninstall": uninstall,
                     "files": [{"path": str(f.path), "what": f.what, "action": f.action} for f in plan.files]}
    if hooks is not None:
        summary |= {"settings": str(hooks.path), "changed": hooks.action != "unchanged",
                    "command": None if uninstall else hook_command(), "events": list(HOOK_EVENTS)}
    summary["mcp"] = {"config": str(server.path), "changed": server.action != "unchanged"} if server else None
    return summary


def print_plan(plan, uninstall: bool) -> None:
    from memory_pipeline.flows.hooks.install import EARLIER, EXTENSION, HOOKS, IGNORED
    from memory_pipeline.stages.hooks.settings import HOOK_EVENTS

    scope = "for you, in every project" if plan.scope == "user" else "for this project only, in files not shared"
    for file in plan.files:
        if file.what in (EARLIER, IGNORED) and file.action == "unchanged":
            continue
        thing = {HOOKS: f"the hooks ({', '.join(HOOK_EVENTS)})", EARLIER: "an earlier install's shared entries",
                 EXTENSION: "the pi extension (briefing, compaction and shutdown events)",
                 IGNORED: "a rule keeping .claude/settings.local.json out of commits"}.get(
            file.what, f"the memory MCP server ({'user' if plan.scope == 'user' else 'local'} scope)")
        if file.action == "unchanged":
            print(f"{'nothing to remove' if uninstall else 'already installed'}: {thing} in {file.path}")
        elif uninstall or file.what == EARLIER:  # an earlier install's entries are only ever removed
            print(f"removed {thing} from {file.path}" + (" (left empty: file removed)" if file.action == "removed" else ""))
        else:
            print(f"installed {thing} in {file.path}" + (" (new file)" if file.action == "created" else ""))
    if not uninstall and plan.agent == "claude-code":
        print(f"installed {scope}; `hooks install {plan.agent} --uninstall"
              f"{' --project' if plan.scope == 'project' else ''}` removes it")
