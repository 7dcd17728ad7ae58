"""`memory-pipeline maintain [--date D]`: run maintenance_job for a day now (the 02:00 schedule's job)."""

from __future__ import annotations

import json

from memory_pipeline.cli.common import add_json_flag, console, print_json, run_day_job


def register(sub) -> None:
    parser = sub.add_parser("maintain", help="merge duplicate memories, tag stale ones, compact Redis (one day)")
    parser.add_argument("--date", help="the day whose new facts are merged, YYYY-MM-DD (default today)")
    add_json_flag(parser)
    parser.set_defaults(handler=run_maintain)


def run_maintain(args) -> int:
    workspace, day, run = run_day_job(args, "maintenance_job", "maintaining {day}…")
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
