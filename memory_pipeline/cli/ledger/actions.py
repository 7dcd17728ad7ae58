"""`memory-pipeline ledger add|show|check`: write an event by hand, read an entity's history,
run the integrity checks (exit 1 when one fails)."""

from __future__ import annotations

import sys
from typing import Any

from memory_pipeline.cli.common import add_json_flag, open_workspace, print_json
from memory_pipeline.stages.ledger.model import EVENT_TYPES, PRIORITIES


def add_actions(actions) -> None:
    add = actions.add_parser("add", help="append one event (validated) to memory/ledger.jsonl")
    add.add_argument("content", help="what happened, in one sentence")
    add.add_argument("--type", required=True, choices=EVENT_TYPES)
    add.add_argument("--priority", required=True, choices=PRIORITIES)
    add.add_argument("--entity", help="the main entity (made snake_case)")
    add.add_argument("--tag", action="append", default=[], dest="tags")
    add.add_argument("--supersedes", help="the id of the event this corrects")
    add.add_argument("--related", action="append", default=[], help="a related event id (repeatable)")
    add.add_argument("--status", choices=("open", "closed"), help="for commitments (default open)")
    add.add_argument("--project", default="default")
    add.add_argument("--source", help='where this came from (default "manual")')
    add_json_flag(add)
    add.set_defaults(handler=run_add)
    show = actions.add_parser("show", help="an entity's history, superseded events included")
    show.add_argument("entity")
    add_json_flag(show)
    show.set_defaults(handler=run_show)
    check = actions.add_parser("check", help="run the integrity checks; exit 1 when one fails")
    add_json_flag(check)
    check.set_defaults(handler=run_check)


def run_add(args) -> int:
    from memory_pipeline.errors import BadInputError
    from memory_pipeline.flows.ledger.events import add_event

    if not args.content.strip():
        raise BadInputError("the event's content is empty")
    fields = {"type": args.type, "priority": args.priority, "content": args.content.strip(), "entity": args.entity,
              "tags": args.tags, "supersedes": args.supersedes, "related": args.related, "status": args.status,
              "project": args.project, "source": args.source}
    event = add_event(open_workspace(args.settings), fields)
    if args.json:
        print_json(event.model_dump(mode="json", exclude_none=True))
    else:
        print(f"appended {event.id}: {event.content}")
    return 0


def run_show(args) -> int:
    from memory_pipeline.resources.files.ledger_files import LedgerFiles
    from memory_pipeline.stages.ledger.model import snake_entity
    from memory_pipeline.stages.ledger.state import LedgerState

    parsed = LedgerFiles(open_workspace(args.settings)).read()
    state = LedgerState.of(parsed.events)
    entity = snake_entity(args.entity)
    history = [e for e in parsed.events if e.entity == entity]
    rows: list[dict[str, Any]] = [{"id": e.id, "ts": e.ts.isoformat(), "type": e.type, "priority": e.priority, "content": e.content,
             "status": "superseded" if e.id in state.superseded_by else "closed" if e.id in state.closed_by
             else (e.status or "active"), "superseded_by": state.superseded_by.get(e.id),
             "supersedes": e.supersedes} for e in history]
    if args.json:
        print_json({"entity": entity, "events": rows, "bad_lines": len(parsed.errors)})
        return 0
    if not rows:
        print(f"no events about {entity}")
    for row in rows:
        note = f" → superseded by {row['superseded_by']}" if row["superseded_by"] else ""
        print(f"{row['id']}  {row['ts'][:10]}  {row['type']:<12} {row['priority']}  [{row['status']}] "
              f"{row['content']}{note}")
    for error in parsed.errors:
        print(f"memory-pipeline: ledger line {error.line} is not a valid event: {error.reason}", file=sys.stderr)
    return 0


def run_check(args) -> int:
    from datetime import date

    from memory_pipeline.flows.ledger.pack import build_packs

    build = build_packs(open_workspace(args.settings), date.today().isoformat(), write=False)
    if args.json:
        print_json(build.report.as_dict(date.today().isoformat()))
    else:
        for check in build.report.checks:
            mark = "ok" if check.passed else "FAILED" if check.severity == "error" else "warning"
            detail = f": {check.count} ({'; '.join(map(str, check.found[:3]))})" if not check.passed else ""
            print(f"{mark:<8} {check.name}{detail}")
    return 0 if build.report.passed else 1
