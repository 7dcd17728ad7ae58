"""`memory-pipeline service start|daemon|enable|disable`: the always-on pipeline. `start` runs the
workspace's Dagster daemon (sensors and schedules) in the background and warms the recall
service; `daemon` runs it in the foreground (what a service manager runs); `enable` registers it
with the user's service manager (systemd --user, launchd), `disable` removes that."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memory_pipeline.cli.common import add_json_flag, console, open_workspace, print_json

START_HELP = "start the workspace's Dagster daemon (sensors, schedules) in the background and the recall service"
DAEMON_HELP = "run the Dagster daemon in the foreground (for systemd, launchd or a terminal)"
ENABLE_HELP = "register the daemon with your user service manager (systemd --user, launchd): runs from login"
DISABLE_HELP = "remove the daemon from your user service manager (and stop it)"


def add_start_arguments(parser) -> None:
    parser.add_argument("--no-recall", action="store_true", help="start only the daemon, not the recall service")
    parser.add_argument("--unless-stopped", action="store_true",  # a hook's start: a `service stop` meanwhile wins
                        help=argparse.SUPPRESS)
    add_json_flag(parser)
    parser.set_defaults(handler=run_start)


def add_daemon_arguments(parser) -> None:
    parser.set_defaults(handler=run_foreground)


def add_enable_arguments(parser) -> None:
    add_json_flag(parser)
    parser.set_defaults(handler=run_enable)


def add_disable_arguments(parser) -> None:
    add_json_flag(parser)
    parser.set_defaults(handler=run_disable)


def prepared_home(workspace, settings) -> Path:
    """DAGSTER_HOME with its storage made (under the workspace's lock): a daemon opening a fresh one
    while a command does would create the schema twice."""
    from memory_pipeline.flows.runs import dagster_home, get_instance

    get_instance(workspace, settings).dispose()
    return dagster_home(workspace, settings)


def run_start(args) -> int:
    from memory_pipeline.resources.daemons.dagster_daemon import start_daemon

    workspace = open_workspace(args.settings)
    pid, started = start_daemon(workspace, prepared_home(workspace, args.settings), args.settings.runtime_dir,
                                unless_stopped=args.unless_stopped)
    report: dict[str, Any] = {"workspace": str(workspace.root), "daemon": {"pid": pid, "started": started,
                                                          "log": str(workspace.state_path("daemon_log"))}}
    if not args.no_recall:
        from memory_pipeline.flows.recall.client import start_service

        report["recall_service"] = start_service(workspace, args.settings)
    if args.json:
        print_json(report)
        return 0
    out = console()
    out.print(f"workspace      {workspace.root}", highlight=False)
    verb = "started" if started else "already running"
    out.print(f"dagster-daemon {verb}, pid {pid}: sensors and schedules run now (log {report['daemon']['log']})",
              highlight=False)
    if "recall_service" in report:
        out.print(f"recall service {'ready' if report['recall_service'] else 'not ready'}", highlight=False)
    return 0


def run_foreground(args) -> int:
    from memory_pipeline.resources.daemons.dagster_daemon import run_daemon_in_foreground

    workspace = open_workspace(args.settings)
    run_daemon_in_foreground(workspace, prepared_home(workspace, args.settings), args.settings.runtime_dir)  # does not return
    return 0


def run_enable(args) -> int:
    from memory_pipeline.resources.daemons.user_service import register

    workspace = open_workspace(args.settings)
    home = args.settings.dagster_home  # only when the user set one; the daemon otherwise finds state/dagster
    registration = register(workspace, home, Path.home())
    return _report(args, registration, "registered")


def run_disable(args) -> int:
    from memory_pipeline.resources.daemons.dagster_daemon import stop_daemon
    from memory_pipeline.resources.daemons.user_service import unregister

    workspace = open_workspace(args.settings)
    registration = unregister(workspace, Path.home())
    stop_daemon(workspace)
    return _report(args, registration, "removed")


def _report(args, registration, verb: str) -> int:
    if args.json:
        print_json(registration.as_dict())
        return 0
    out = console()
    if registration.path:
        state = "running now" if registration.active else "not running now"
        out.print(f"{registration.manager}: {verb} {registration.path} ({state})", highlight=False)
    else:
        out.print(f"no user service manager found ({registration.manager})", highlight=False)
    for note in registration.notes:
        out.print(f"  {note}", highlight=False)
    return 0
