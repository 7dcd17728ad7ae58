"""`memory-pipeline review list | show ID | approve ID… | reject ID… | edit ID TEXT | sync`.

Every subcommand first takes in the user's REVIEW.md edits and expires old proposals, so the
file and the command always agree; approvals are promoted into MEMORY.md right away.
"""

from __future__ import annotations

from memory_pipeline.cli.common import add_json_flag, console, open_workspace, print_json


def register(sub) -> None:
    parser = sub.add_parser("review", help="review memory proposals and friction fixes (REVIEW.md) and apply them")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="pending proposals (add --all for every status)")
    listing.add_argument("--all", action="store_true", help="include approved, rejected and expired ones")
    listing.add_argument("--rejected", action="store_true", help="the rejected ones, triage's reasons beside them")
    show = actions.add_parser("show", help="one proposal with its sources")
    show.add_argument("id")
    approve = actions.add_parser("approve", help="approve proposals and promote them into MEMORY.md")
    approve.add_argument("ids", nargs="+", metavar="ID")
    approve.add_argument("--held", action="store_true",
                         help="also approve the named proposals held for review (network code, privileges, disabled "
                              "checks, words to the agent); a plain approve only shows why they are held")
    approve.add_argument("--replace", action="store_true",
                         help="put each approved line in the place of the MEMORY.md line it contradicts "
                              "(REVIEW.md names that line) instead of beside it")
    reject = actions.add_parser("reject", help="reject proposals")
    reject.add_argument("ids", nargs="+", metavar="ID")
    edit = actions.add_parser("edit", help="change a pending proposal's text")
    edit.add_argument("id")
    edit.add_argument("text", nargs="+")
    sync = actions.add_parser("sync", help="apply REVIEW.md edits, expire old proposals, promote approvals")
    restore = actions.add_parser("restore", help="make rejected proposals pending again (undo auto-reject)")
    restore.add_argument("ids", nargs="+", metavar="ID")
    for sub_parser in (listing, show, approve, reject, edit, sync, restore):
        add_json_flag(sub_parser)
        sub_parser.set_defaults(handler=run_review)


def print_report(report, out) -> None:
    from memory_pipeline.flows.review.promote import OUTCOME_ICONS

    for outcome in report.outcomes:
        detail = f" ({outcome.detail})" if outcome.detail else ""
        out.print(f"{OUTCOME_ICONS[outcome.kind]} {outcome.kind} {outcome.pid}{detail}: {outcome.text}",
                  markup=False, highlight=False)
    for pid in report.promoted:
        out.print(f"📌 promoted {pid} into {report.applied.get(pid, 'MEMORY.md')}", markup=False, highlight=False)
    for pid, reasons in report.held.items():
        out.print(f"⚠ held {pid}: {'; '.join(reasons)} (not approved)", markup=False, highlight=False, style="yellow")
    for message in report.messages:
        out.print(f"note: {message}", markup=False, highlight=False)
    for error in report.errors:
        out.print(f"error: {error}", markup=False, highlight=False, style="red")


def print_proposals(proposals, out) -> None:
    from rich.table import Column, Table

    if not proposals:
        out.print("no proposals")
        return
    from memory_pipeline.stages.guard import hold_reasons

    table = Table(Column("id", no_wrap=True), "status", "section", "text", "sources")  # an id is copied whole
    for p in proposals:
        flag = " [quotes transcript]" if p.quotes_transcript else ""
        if reasons := hold_reasons(p.text):
            flag += f" [HELD FOR REVIEW: {'; '.join(reasons)}]"
        if p.triage:
            flag += f" [triage: {p.triage} — {p.triage_reason}]"
        table.add_row(p.id, p.status + (" (triage)" if p.decided_by == "triage" else ""), p.section, p.text + flag,
                      f"{len(p.source_observation_ids)} obs / {len(p.sessions)} sessions")
    out.print(table)


def run_review(args) -> int:
    from memory_pipeline.errors import BadInputError
    from memory_pipeline.flows.review.actions import listed_proposals, open_proposals, review_now, run_review_action

    workspace = open_workspace(args.settings)
    store = open_proposals(workspace, args.settings)
    report = run_review_action(workspace, store, args.settings, args.action, ids=getattr(args, "ids", []),
                               pid=getattr(args, "id", None), text=" ".join(getattr(args, "text", [])),
                               now=review_now(args.settings), held=getattr(args, "held", False),
                               replace=getattr(args, "replace", False))
    out = console()
    if args.action == "show":
        found = store.get(args.id)
        if found is None:
            raise BadInputError(f"unknown proposal id {args.id} (see `memory-pipeline review list --all`)")
        if args.json:
            print_json(found.model_dump())
            return 0
        for key, value in found.model_dump().items():
            out.print(f"{key:<24} {value}", markup=False, highlight=False)
        return 0
    if args.action == "list":
        listed = listed_proposals(store, every=args.all, rejected=args.rejected)
        if args.json:
            from memory_pipeline.stages.guard import hold_reasons

            print_json({"proposals": [{**p.model_dump(), "held": hold_reasons(p.text)} for p in listed],
                        "review": report.as_dict()})
            return 0
        print_report(report, out)
        print_proposals(listed, out)
        return 0
    if args.json:
        print_json(report.as_dict())
    else:
        print_report(report, out)
        if not (report.outcomes or report.promoted or report.messages or report.errors):
            out.print("nothing to do")
    return 2 if report.errors else 0
