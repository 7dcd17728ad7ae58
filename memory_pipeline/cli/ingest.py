"""`memory-pipeline ingest`: materialize everything pending in the workspace."""

from __future__ import annotations

from memory_pipeline.cli.common import add_json_flag, console, failure_text, open_workspace, print_json


def register(sub) -> None:
    parser = sub.add_parser("ingest", help="take the inbox and materialize every pending day")
    parser.add_argument("--date", help="materialize this day (YYYY-MM-DD) even if nothing is pending")
    add_json_flag(parser)
    parser.set_defaults(handler=run_ingest)


def print_report(report, out) -> None:
    from rich.markup import escape
    from rich.table import Table

    out.print(f"inbox: {report.accepted} accepted, {report.duplicates} duplicate, "
              f"{len(report.quarantined)} quarantined, {report.waiting} still being written")
    if report.store:
        out.print(f"[yellow]{escape(report.store)}[/]")
    for name, reason in report.quarantined:
        out.print(f"  [yellow]quarantined[/] {name}: {reason}")
    if not report.days:
        out.print("nothing pending: every accepted event is observed")
        return
    table = Table("day", "run", "observations", "🔴", "🟡", "🟢", "status")
    for day in report.days:
        status = "[green]ok[/]" if day.success else f"[red]failed[/] {failure_text(day.error, day.output)}"
        table.add_row(day.day, day.run_id[:8], str(day.observations), str(day.facts.get("high", 0)),
                      str(day.facts.get("medium", 0)), str(day.facts.get("low", 0)), status)
    out.print(table)


def run_ingest(args) -> int:
    from memory_pipeline.flows.intake.ingest import ingest

    out = console()
    if args.json:
        report = ingest(open_workspace(args.settings), args.definitions(), args.settings, day=args.date)
        print_json(report.as_dict())
    else:
        with out.status("ingesting…"):
            report = ingest(open_workspace(args.settings), args.definitions(), args.settings, day=args.date,
                            progress=lambda d: out.log(f"materialized {d}"))
        print_report(report, out)
    from memory_pipeline.errors import DiskFullError, is_disk_full_message

    full = next((d for d in report.days if is_disk_full_message(d.error)), None)
    if full is not None:
        raise DiskFullError(str(open_workspace(args.settings).root), full.output)
    return 0 if report.success else 1
