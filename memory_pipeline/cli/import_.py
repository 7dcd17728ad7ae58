"""`memory-pipeline import PATH…`: backfill existing transcripts into their own days' partitions."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.cli.common import add_json_flag, file_label, open_workspace, print_json


def register(sub) -> None:
    parser = sub.add_parser(
        "import",
        help="backfill transcripts (Claude Code projects folder, pi or Codex sessions folder, files) as events",
        description="Each session becomes a shutdown event dated by the transcript's own timestamps and is "
        "accepted into events/<day>/. A session that shows too little work (fewer than 3 user messages and 10 "
        "tool calls, no modified file, under 2,000 characters of conversation) is imported as indexed, not "
        "observed (its messages become searchable; the Observer skips it). Empty sessions, subagent files and sessions "
        "already imported are skipped. The daily partitions reach back to the oldest session imported (a "
        "running `memory-pipeline service ui` reloads them). Then run `memory-pipeline ingest` (observe them) and `memory-pipeline reflect "
        "--backfill` (reflect them; under `dagster dev` the unreflected_days_sensor does it).",
    )
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    parser.add_argument("--project", help="file every session under this project (default: each session's own "
                        "project, from the folder it ran in)")
    add_json_flag(parser)
    parser.set_defaults(handler=run_import)


def run_import(args) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from memory_pipeline.flows.intake.importer import import_transcripts
    from memory_pipeline.resources import partitions as partition_days
    from memory_pipeline.resources.daemons.dagster_dev import reload_running_ui

    workspace = open_workspace(args.settings)
    settings = args.settings
    first_day = partition_days.partitions_start(settings)
    err = Console(stderr=True)
    columns = (TextColumn("importing"), BarColumn(bar_width=24), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.description}"))
    with Progress(*columns, console=err, transient=False, disable=args.json) as progress:
        task = progress.add_task("", total=None)

        def found(total: int) -> None:
            progress.update(task, total=total)

        def done(item) -> None:
            name = Path(item.path).name
            progress.update(task, advance=1, description=f"{item.status}: {file_label(name)}")

        report = import_transcripts(workspace, args.paths, args.settings, on_found=found, on_item=done, project=args.project)
    moved = partition_days.partitions_start(settings)
    reloaded = reload_running_ui(workspace) if moved < first_day else None
    if args.json:
        print_json(report.as_dict() | {"partitions_start": moved, "ui_reloaded": reloaded})
    else:
        counts = report.counts
        out = Console()
        out.print(f"{counts['imported']} imported ({counts['indexed_not_observed']} of them indexed, not observed: "
                  f"too little work), {counts['already']} already imported, {counts['skipped']} skipped, "
                  f"{counts['failed']} failed")
        if report.projects:
            out.print("projects: " + ", ".join(f"{name or '(none)'} {count}" for name, count in report.projects.items()),
                      highlight=False)
        if moved < first_day:
            out.print(f"partitions: now from {moved} (were from {first_day})"
                      + (f"; the running UI at {reloaded} reloaded them" if reloaded else ""), highlight=False)
        if report.days:
            out.print(f"days: {', '.join(report.days)}  →  run `memory-pipeline ingest` to index and observe them, "
                      "then `memory-pipeline reflect --backfill` to reflect them")
        for item in report.items:
            if item.status in ("failed", "skipped"):
                out.print(f"  [yellow]{item.status}[/] {item.path}: {item.reason}", highlight=False)
            elif item.cut:
                out.print(f"  [yellow]cut[/] {item.path}: {item.cut}", highlight=False)
    return 1 if report.counts["failed"] and not report.counts["imported"] else 0
