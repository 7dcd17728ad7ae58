"""`memory-pipeline maintain [--date D]`: run maintenance_job for a day now (the 02:00 schedule's job)."""

from __future__ import annotations

import json

from memory_pipeline.cli.common import add_json_flag, console, print_json, workspace_from_env


def register(sub) -> None:
    parser = sub.add_parser("maintain", help="merge duplicate memories, tag stale ones, compact Redis (one day)")
    parser.add_argument("--date", help="the day whose new facts are merged, YYYY-MM-DD (default today)")
    add_json_flag(parser)
    parser.set_defaults(handler=run_maintain)


def run_maintain(args) -> int:
    from datetime import date

    from memory_pipeline import pipeline
    from memory_pipeline.config import Settings
    from memory_pipeline.errors import BadInputError
    from memory_pipeline.flows.runs import get_instance, run_job_for_days

    day, settings = args.date or date.today().isoformat(), Settings.from_env()
    if not pipeline.valid_day(day, settings):
        raise BadInputError(f"--date {day} is not a daily partition (YYYY-MM-DD from "
                            f"{settings.partitions_start} to today)")
    workspace = workspace_from_env()
    with console().status(f"maintaining {day}…"):
        [run] = run_job_for_days(args.definitions(), "maintenance_job", [day], get_instance(workspace))
    path = workspace.state_path("maintenance") / f"{day}.json"
    report = json.loads(path.read_text(encoding="utf-8")) if run.success and path.exists() else {}
    report |= {"day": day, "run_id": run.run_id, "success": run.success, "error": run.error}
    if args.json:
        print_json(report)
    elif not run.success:
        console().print(f"[red]maintenance of {day} failed[/] (run {run.run_id[:8]}): {run.error}", highlight=False)
    else:
        console().print(f"{day}: {report['memories']} memories, {report['merged']} merged into a near-duplicate, "
                        f"{report['tagged_stale']} tagged stale, {report['unstaled']} no longer stale, "
                        f"{report['redis_keys_removed']} Redis keys removed", highlight=False)
    return 0 if run.success else 1
