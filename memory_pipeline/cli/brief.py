"""`memory-pipeline brief`: the session-start briefing (MEMORY.md, review nudge, recent 🔴 observations)."""

from __future__ import annotations

import sys

from memory_pipeline.cli.common import add_json_flag, add_project_flags, looked_at, open_workspace, print_json


def register(sub) -> None:
    parser = sub.add_parser("brief", help="print what an agent should read at session start")
    parser.add_argument("--budget-tokens", type=int, default=2000,
                        help="token budget for the observation part (default 2000)")
    parser.add_argument("--date", help="the session's day, YYYY-MM-DD (default today; a day before the "
                        "recall pack's gets the pack as of that day)")
    add_project_flags(parser)
    add_json_flag(parser)
    parser.set_defaults(handler=run_brief)


def run_brief(args) -> int:
    from datetime import date

    from memory_pipeline.errors import BadInputError
    from memory_pipeline.flows.brief import build_brief
    from memory_pipeline.flows.status import memory_footer

    if args.budget_tokens < 0:
        raise BadInputError("--budget-tokens must be 0 or more")
    if args.date:
        try:
            date.fromisoformat(args.date)
        except ValueError as exc:
            raise BadInputError(f"--date {args.date!r} is not YYYY-MM-DD") from exc
    workspace = open_workspace(args.settings)
    looked = looked_at(args, workspace)
    brief = build_brief(workspace, budget_tokens=args.budget_tokens, today=args.date, project=looked.project,
                        scope=looked.why, footer=memory_footer(workspace, args.settings))
    for note in brief.notes_on_files:
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        print_json(brief.as_dict())
    else:
        sys.stdout.write(brief.text)
    return 0
