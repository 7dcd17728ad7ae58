"""Helpers shared by the commands: the workspace, JSON output, the console."""

from __future__ import annotations

import json
import sys

from memory_pipeline.config import Settings
from memory_pipeline.resources.workspace import Workspace


def open_workspace(settings: Settings) -> Workspace:
    """The workspace the settings name, created if new. `cli.main` builds the settings once per
    command (`args.settings`); nothing below the commands reads the environment for them."""
    return Workspace(settings.workspace).create()


def print_json(value: object) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, default=str) + "\n")


def console():
    from rich.console import Console

    return Console()


def file_label(name: str, limit: int = 32) -> str:
    """A file's name as a progress bar shows it: cut to `limit` characters, the cut marked with '…'."""
    return name if len(name) <= limit else name[:limit - 1] + "…"


def add_json_flag(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def run_day_job(args, job_name: str, status: str, tags: dict[str, str] | None = None):
    """`--date` (default today in MEMORY_TIMEZONE) checked, `job_name` run for it in this process:
    (workspace, day, run). A run that failed on a full disk becomes one "disk full at PATH" line."""
    from memory_pipeline import pipeline
    from memory_pipeline.errors import DiskFullError, is_disk_full_message
    from memory_pipeline.flows.runs import get_instance, run_job_for_days
    from memory_pipeline.resources import partitions

    settings = args.settings
    day = partitions.check_day(args.date or pipeline.local_today(settings).isoformat(), settings)
    workspace = open_workspace(settings)
    with console().status(status.format(day=day)):
        [run] = run_job_for_days(args.definitions(), job_name, [day], get_instance(workspace, settings), tags=tags,
                                 output_log=workspace.state_path("dagster_output"))
    if not run.success and is_disk_full_message(run.error):
        raise DiskFullError(str(workspace.root), run.output)
    return workspace, day, run


def failure_text(error: str | None, output: str | None) -> str:
    """A failed run's error, and where Dagster's own output went when it printed any."""
    return (error or "run failed") + (f" ({output})" if output else "")


def add_project_flags(parser) -> None:
    """`--project NAME` and `--all-projects`; without them, the project of the current folder."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--project", help="this project's memories (plus the user's own), not the current folder's")
    group.add_argument("--all-projects", action="store_true", help="memories of every project")


def asked_project(args) -> tuple[str | None, str]:
    """The project a read command was asked about and how: `--all-projects` (None), `--project NAME`
    (a name, or a folder to resolve), else the git repository of the current folder."""
    from pathlib import Path

    from memory_pipeline.resources.projects import named_project, resolve_project
    from memory_pipeline.stages.projects import ASKED_ALL, ASKED_BY_FOLDER, ASKED_BY_NAME

    if getattr(args, "all_projects", False):
        return None, ASKED_ALL
    given = getattr(args, "project", None)
    if given:
        return named_project(given, args.settings), ASKED_BY_NAME
    return resolve_project(Path.cwd(), args.settings), ASKED_BY_FOLDER


def looked_at(args, workspace):
    """The scope a read command uses (stages.projects.LookedAt, the rule every door shares): the
    folder's or named project plus the user's own memories, every project with `--all-projects`."""
    from memory_pipeline.resources.files.project_tally import scope_for

    return scope_for(workspace, *asked_project(args))


def add_alias(sub, old_name: str, new_name: str, add_arguments) -> None:
    """An old command name kept working (installed hooks and scripts call it), left out of the
    command list: `memory-pipeline OLD --help` names the new one."""
    add_arguments(sub.add_parser(old_name, description=f"the old name of `memory-pipeline {new_name}`"))
