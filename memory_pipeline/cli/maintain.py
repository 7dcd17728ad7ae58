"""`memory-pipeline maintain [--date D] [--since D]`: run maintenance_job now (the 02:00 schedule's job)
for a day, or with --since for every day with sessions from D to --date (catching up on nights the
machine was off, or a history imported at once)."""

from __future__ import annotations

import json
from datetime import date

from memory_pipeline.cli.common import add_json_flag, console, failure_text, print_json, run_day_job


def register(sub) -> None:
    parser = sub.add_parser("maintain", help="merge duplicate memories, tag stale ones, compact Redis and stores")
    parser.add_argument("--date", help="the day whose new facts are merged, YYYY-MM-DD (default today)")
    parser.add_argument("--since", help="also every earlier day with sessions from this day on, YYYY-MM-DD")
    parser.add_argument("--as-of", help="judge staleness as of this day instead of today, YYYY-MM-DD (replays)")
    add_json_flag(parser)
    parser.set_defaults(handler=run_maintain)


def run_maintain(args) -> int:
    if args.since:
        return _run_range(args)
    workspace, day, run = run_day_job(args, "maintenance_job", "maintaining {day}…", _tags(args))
    report = _report(workspace, day, run)
    if args.json:
        print_json(report)
    else:
        _print(report)
    return 0 if run.success else 1


def _run_range(args) -> int:
    from memory_pipeline import pipeline
    from memory_pipeline.cli.common import open_workspace
    from memory_pipeline.errors import BadInputError
    from memory_pipeline.flows.runs import get_instance, run_job_for_days
    from memory_pipeline.resources import partitions
    from memory_pipeline.resources.files.inbox import Inbox

    settings = args.settings
    last = partitions.check_day(args.date or pipeline.local_today(settings).isoformat(), settings)
    first = partitions.check_day(args.since, settings)
    if first > last:
        raise BadInputError(f"--since {first} is after --date {last}")
    workspace = open_workspace(args.settings)
    days = [d for d in Inbox(workspace).accepted_days() if first <= d < last] + [last]
    with console().status(f"maintaining {len(days)} days, {first}..{last}…"):
        runs = run_job_for_days(args.definitions(), "maintenance_job", days, get_instance(workspace, settings), _tags(args),
                                output_log=workspace.state_path("dagster_output"))
    reports = [_report(workspace, run.day, run) for run in runs]
    for report in reports:
        print_json(report) if args.json else _print(report)
    return 0 if all(run.success for run in runs) else 1


def _tags(args) -> dict[str, str]:
    from memory_pipeline.errors import BadInputError
    from memory_pipeline.flows.runs import TODAY_TAG
    from memory_pipeline.resources import partitions

    if not args.as_of:
        return {}
    try:
        as_of = date.fromisoformat(args.as_of).isoformat()
    except ValueError as exc:
        raise BadInputError(f"--as-of must be a day, YYYY-MM-DD: {args.as_of!r}") from exc
    if args.date and as_of < partitions.check_day(args.date, args.settings):
        raise BadInputError(f"--as-of {as_of} is before --date {args.date}")
    return {TODAY_TAG: as_of}


def _report(workspace, day: str, run) -> dict:
    path = workspace.state_path("maintenance") / f"{day}.json"
    report = json.loads(path.read_text(encoding="utf-8")) if run.success and path.exists() else {}
    return report | {"day": day, "run_id": run.run_id, "success": run.success, "error": run.error, "output": run.output}


def _print(report: dict) -> None:
    day = report["day"]
    if not report["success"]:
        console().print(f"[red]maintenance of {day} failed[/] (run {report['run_id'][:8]}): "
                        f"{failure_text(report['error'], report['output'])}", highlight=False)
        return
    console().print(f"{day}: {report['memories']} memories, {report['merged']} merged into a near-duplicate, "
                    f"{report['tagged_stale']} tagged stale, {report['unstaled']} no longer stale, "
                    f"{report['redis_keys_removed']} Redis keys removed, "
                    f"{report['bytes_reclaimed']} bytes reclaimed", highlight=False)
