"""`memory-pipeline reflect`: run reflect_job (reflections → proposals → memory_md) for a day now.

The same job the 06:00 schedule and the token-threshold sensor start, run in this process and
recorded in the Dagster instance, for a user who wants proposals without waiting for 06:00.
"""

from __future__ import annotations

from memory_pipeline.cli.common import add_json_flag, console, failure_text, open_workspace, print_json, run_day_job


def register(sub) -> None:
    parser = sub.add_parser("reflect", help="reflect on a day's observations and stage proposals in REVIEW.md")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--date", help="the day to reflect on, YYYY-MM-DD (default today; the window is the "
                                      "7 days ending there)")
    which.add_argument("--backfill", action="store_true",
                       help="reflect every day whose observations are not reflected yet (after `import` and "
                            "`ingest`), oldest first; their proposals stay reviewable for 7 days from now")
    add_json_flag(parser)
    parser.set_defaults(handler=run_reflect)


def reflect_report(workspace, day: str, run, settings) -> dict:
    from memory_pipeline.flows.reflect import load_reflection
    from memory_pipeline.flows.review.actions import open_proposals

    reflection = load_reflection(workspace, day) if run.success else None
    pending = [p for p in open_proposals(workspace, settings).pending() if p.created == day] if run.success else []
    return {
        "day": day, "run_id": run.run_id, "success": run.success, "error": run.error, "output": run.output,
        "observations": len(reflection.observation_ids) if reflection else 0,
        "proposals": len(reflection.proposals) if reflection else 0,
        "staged": [{"id": p.id, "section": p.section, "text": p.text} for p in pending],
        "summary": reflection.summary if reflection else "",
        "review": str(workspace.review_md),
    }


def run_reflect(args) -> int:
    settings = args.settings
    if args.backfill:
        return run_backfill(args, settings)
    workspace, day, run = run_day_job(args, "reflect_job", "reflecting on the 7 days ending {day}…")
    out = console()
    report = reflect_report(workspace, day, run, args.settings)
    if args.json:
        print_json(report)
    elif not run.success:
        out.print(f"[red]reflection of {day} failed[/] (run {run.run_id[:8]}): {failure_text(run.error, run.output)}",
                  highlight=False)
    else:
        out.print(f"reflected {report['observations']} observations of the 7 days ending {day}: "
                  f"{report['proposals']} proposals, {len(report['staged'])} staged for review", highlight=False)
        if report["summary"]:
            out.print(report["summary"], markup=False, highlight=False)
        for staged in report["staged"]:
            out.print(f"  ☐ {staged['id']} [{staged['section']}] {staged['text']}", markup=False, highlight=False)
        out.print(f"review them in {report['review']} or with `memory-pipeline review list`", highlight=False)
    return 0 if run.success else 1


def run_backfill(args, settings) -> int:
    from memory_pipeline.flows.reflect import unreflected_days
    from memory_pipeline.flows.runs import get_instance, run_job_for_days
    from memory_pipeline.resources import partitions

    workspace = open_workspace(args.settings)
    found = unreflected_days(workspace)
    days = [d for d in found if partitions.valid_day(d, settings)]
    outside = sorted(set(found) - set(days))  # said, never skipped silently
    out = console()
    with out.status(f"reflecting {len(days)} days…"):
        runs = run_job_for_days(args.definitions(), "reflect_job", days, get_instance(workspace, settings),
                                tags={"memory/trigger": "backfill"},
                                output_log=workspace.state_path("dagster_output")) if days else []
    reports = [reflect_report(workspace, run.day, run, settings) for run in runs]
    if args.json:
        print_json({"days": reports, "outside_partitions": outside})
    elif not reports and not outside:
        out.print("every day with observations is already reflected")
    if outside and not args.json:
        out.print(f"[yellow]not reflected[/]: {len(outside)} days outside the daily partitions (from "
                  f"{partitions.partitions_start(settings)}, MEMORY_PARTITIONS_START when set): {', '.join(outside)}",
                  highlight=False)
    for report in [] if args.json else reports:
        state = "ok" if report["success"] else f"[red]failed[/]: {failure_text(report['error'], report['output'])}"
        out.print(f"{report['day']}: {report['observations']} observations, {len(report['staged'])} staged ({state})",
                  highlight=False)
    return 0 if all(run.success for run in runs) and not outside else 1
