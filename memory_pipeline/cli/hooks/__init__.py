"""`memory-pipeline hooks install|run`: put the memory hooks in an agent's settings, and answer one
hook call. `install-hooks` and `hook` are the old names; `hook claude-code` is the command line
that settings files already hold, so it stays."""

from __future__ import annotations

from memory_pipeline.cli.common import add_alias
from memory_pipeline.cli.hooks import install, run


def register(sub) -> None:
    parser = sub.add_parser("hooks", help="install the agent hooks, or handle one hook call")
    group = parser.add_subparsers(dest="hooks_action", required=True, metavar="ACTION")
    install.add_arguments(group.add_parser("install", help=install.HELP))
    run.add_arguments(group.add_parser("run", help=run.HELP))
    add_alias(sub, "install-hooks", "hooks install", install.add_arguments)
    add_alias(sub, "hook", "hooks run", run.add_arguments)
