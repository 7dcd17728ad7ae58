"""`memory-pipeline friction [--date D] [--json]`: run friction_job for a day now.

The same job the 07:00 schedule starts, run in this process and recorded in the Dagster
instance: recurring friction over the 7 days ending at the day, staged as fixes in REVIEW.md.
"""

from __future__ import annotations

from memory_pipeline.cli.common import add_json_flag, console, failure_text, print_json, run_day_job


def register(sub) -> None:
    parser = sub.add_parser("friction", help="find recurring friction in the last 7 days and stage fixes in REVIEW.md")
    parser.add_argument("--date", help="the last day of the 7-day window, YYYY-MM-DD (default today)")
    add_json_flag(parser)
    parser.set_defaults(handler=run_friction)


def friction_summary(workspace, day: str, run, settings) -> dict:
    from memory_pipeline.flows.friction.analysis import load_friction
    from memory_pipeline.flows.review.actions import open_proposals

    report = load_friction(workspace, day) if run.success else None
    staged = []
    if report:
        store = open_proposals(workspace, settings)
        staged = [store.get(fid) for fid in report.staged]
    return {
        "day": day, "run_id": run.run_id, "success": run.success, "error": run.error, "output": run.output,
        "skipped": report.skipped if report else None,
        "observations": report.observations if report else 0, "sessions": report.sessions if report else 0,
        "signals": report.signals if report else {},
        "findings": [f.model_dump(exclude={"evidence"}) | {"evidence": [e.line() for e in f.evidence]}
                     for f in report.findings] if report else [],
        "staged": [p.model_dump() for p in staged if p is not None],
        "recurring": report.recurring if report else {}, "not_staged": report.not_staged if report else {},
        "review": str(workspace.review_md),
    }


def print_summary(summary: dict, out) -> None:
    day = summary["day"]
    if summary["skipped"]:
        out.print(f"friction for the 7 days ending {day} skipped: {summary['skipped']}", markup=False, highlight=False)
        if not summary["findings"]:
            return
    signals = ", ".join(f"{n} {kind}" for kind, n in sorted(summary["signals"].items())) or "no signals"
    out.print(f"{summary['observations']} observations from {summary['sessions']} sessions in the 7 days ending "
              f"{day}: {signals}; {len(summary['findings'])} recurring patterns", markup=False, highlight=False)
    for fix in summary["staged"]:
        where = fix["section"] if fix["target"] == "MEMORY.md" else f"{fix['target_dir']}/{fix['target']}"
        out.print(f"  ☐ {fix['id']} severity {fix['severity']:g} → {fix['target']} ({where}): {fix['text']}",
                  markup=False, highlight=False)
    for fid, pattern in summary["recurring"].items():
        out.print(f"  🔁 approved fix {fid} did not stop: {pattern}", markup=False, highlight=False)
    for pattern, why in summary["not_staged"].items():
        out.print(f"  ⏭ {pattern}: {why}", markup=False, highlight=False)
    if summary["staged"]:
        out.print(f"review them in {summary['review']} or with `memory-pipeline review approve f-…`", highlight=False)


def run_friction(args) -> int:
    workspace, day, run = run_day_job(args, "friction_job", "looking for friction in the 7 days ending {day}…")
    out = console()
    summary = friction_summary(workspace, day, run, args.settings)
    if args.json:
        print_json(summary)
    elif not run.success:
        out.print(f"[red]friction analysis of {day} failed[/] (run {run.run_id[:8]}): "
                  f"{failure_text(run.error, run.output)}", highlight=False)
    else:
        print_summary(summary, out)
    return 0 if run.success else 1
