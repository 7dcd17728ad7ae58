"""`memory-pipeline ledger pack`: build the recall pack now (recall/pack.md, one per project) and print it.
Integrity failures are printed on stderr and make the exit code 1."""

from __future__ import annotations

import sys

from memory_pipeline.cli.common import add_json_flag, add_project_flags, looked_at, open_workspace, print_json

HELP = "build the recall pack from the ledger and print it"


def add_arguments(parser) -> None:
    parser.add_argument("--date", help="the pack's day, YYYY-MM-DD (default today)")
    add_project_flags(parser)
    add_json_flag(parser)
    parser.set_defaults(handler=run_pack)


def run_pack(args) -> int:
    from datetime import date

    from memory_pipeline.errors import BadInputError
    from memory_pipeline.flows.ledger.pack import build_packs

    day = args.date or date.today().isoformat()
    try:
        date.fromisoformat(day)
    except ValueError as exc:
        raise BadInputError(f"--date {day!r} is not YYYY-MM-DD") from exc
    workspace = open_workspace(args.settings)
    looked = looked_at(args, workspace)
    build = build_packs(workspace, day)
    pack = build.pack(looked.project)  # a project with no events of its own: the user-level pack
    if args.json:
        print_json({"day": day, "project": pack.project, "scope": looked.as_dict(), "words": pack.words,
                    "text": pack.text, "integrity": build.report.as_dict(day), "written": build.written})
    else:
        print(f"scope: {looked.why}", file=sys.stderr)
        sys.stdout.write(pack.text)
    for line in build.report.summary():
        print(f"memory-pipeline: integrity check failed: {line}", file=sys.stderr)
    return 0 if build.report.passed else 1
