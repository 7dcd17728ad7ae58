"""`memory-pipeline service status`: services, counts and pending events."""

from __future__ import annotations

from memory_pipeline.cli.common import add_json_flag, console, open_workspace, print_json

HELP = "services, counts and pending events"


def add_arguments(parser) -> None:
    add_json_flag(parser)
    parser.set_defaults(handler=run_status)


def run_status(args) -> int:
    from memory_pipeline.cli.service.stop import describe
    from memory_pipeline.flows.status import workspace_status
    from memory_pipeline.resources.daemons.services import ServiceProcess

    report = workspace_status(open_workspace(args.settings), args.settings)
    if args.json:
        print_json(report)
        return 0
    out = console()
    out.print(f"workspace  {report['workspace']}")
    for name, info in report["services"].items():
        state = "" if "ok" not in info else ("[green]ok[/] " if info["ok"] else "[red]down[/] ")
        detail = ", ".join(f"{k}={v}" for k, v in info.items() if k != "ok")
        out.print(f"{name:<10} {state}{detail}", highlight=False)
    out.print(f"partitions daily, from {report['partitions_start']} to today")
    out.print(f"inbox      {report['inbox_pending']} pending, {report['quarantined']} quarantined")
    out.print(f"memory     {report['events']} events over {report['days']} days "
              f"({report['indexed_not_observed']} indexed, not observed), "
              f"{report['observations']} observations, {report['facts']} facts")
    projects = ", ".join(f"{name or '(no project)'} {n}" for name, n in report["projects"].items())
    out.print(f"projects   {projects or 'none yet'}", highlight=False)
    print_pipeline(out, report["pipeline"])
    pending = report["pending_days"]
    out.print(f"pending    {', '.join(pending) if pending else 'nothing'}")
    hooks = report["hooks_7d"]
    out.print(f"hooks (7d) {', '.join(f'{k} {v}' for k, v in hooks.items()) if hooks else 'no decisions logged'}")
    processes = report["processes"]
    out.print(f"processes  {'none running' if not processes else len(processes)}")
    for process in processes:
        out.print(f"  {describe(ServiceProcess(**process))}", highlight=False)
    return 0


def print_pipeline(out, pipeline: dict) -> None:
    """What runs the sensors and schedules, the last sensor tick, each schedule's last and next run."""
    runner = pipeline["runs_by"]
    if runner["running"]:
        where = f", pid {runner['pid']}" if runner.get("pid") else ""
        managed = f", registered as {runner['service_manager']}" if runner.get("service_manager") else ""
        beat = f", heartbeat {runner['heartbeat_s_ago']}s ago" if runner.get("heartbeat_s_ago") is not None else ""
        out.print(f"pipeline   [green]running[/]: {runner['what']}{where}{beat}{managed}", highlight=False)
    else:
        out.print(f"pipeline   [red]not running[/]: nothing runs the sensors and schedules ({runner['note']})",
                  highlight=False)
    tick = pipeline["last_sensor_tick"]
    out.print("sensors    " + (f"last tick {tick['last_tick']['at']} ({tick['name']}, {tick['last_tick']['status']})"
                               if tick else "never ticked"), highlight=False)
    out.print(f"backlog    {pipeline['inbox_backlog']} events in the inbox", highlight=False)
    if pipeline.get("note"):
        out.print(f"schedules  {pipeline['note']}", highlight=False)
    for schedule in pipeline["schedules"]:
        last = schedule["last_run"]
        done = f"last {last['at']} ({last['status']})" if last else "not run yet"
        out.print(f"  {schedule['name']:<28} {done}, next {schedule['next_run']}", highlight=False)
