"""`memory-pipeline emit`: report a compaction or a session end as an event file."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

from memory_pipeline.cli.common import add_json_flag, open_workspace, print_json
from memory_pipeline.errors import BadInputError


def register(sub) -> None:
    emit = sub.add_parser("emit", help="write one session event into the workspace inbox")
    emit.add_argument("--trigger", required=True, choices=["compaction", "shutdown"])
    emit.add_argument("--transcript", required=True, type=Path, help="the session transcript file")
    emit.add_argument("--session-id", help="defaults to the id in the transcript")
    emit.add_argument("--format", default="auto", choices=["auto", "claude-code", "pi", "codex", "text"])
    emit.add_argument("--session-name")
    emit.add_argument("--project", help="the session's project: a name or a folder (default: the project of the "
                      "transcript's working folder, i.e. its git repository)")
    emit.add_argument("--captured-at", help="ISO 8601 time of capture (default: now)")
    emit.add_argument("--window", default="all", choices=["all", "since-compaction"],
                      help="which messages the event covers (default: the whole transcript)")
    emit.add_argument("--force", action="store_true", help="accepted and ignored (old scripts pass it): a window that shows too "
                      "little work is always emitted, indexed and not observed yet")
    add_json_flag(emit)
    emit.set_defaults(handler=run_emit)


def parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise BadInputError(f"--captured-at is not ISO 8601: {value!r}") from None
    return moment if moment.tzinfo else moment.astimezone()


def run_emit(args) -> int:
    from memory_pipeline.flows.intake.emit import emit_session_event
    from memory_pipeline.stages.events import observe_skip_reason

    result = emit_session_event(
        open_workspace(args.settings),
        args.transcript,
        trigger=args.trigger,
        session_id=args.session_id,
        format=args.format,
        captured_at=parse_time(args.captured_at),
        window=args.window,
        session_name=args.session_name,
        project=args.project,
        settings=args.settings,
    )
    event = result.event
    if result.path is None or event is None:  # an event is written whenever one is made
        if args.json:
            print_json({"emitted": False, "reason": result.skipped})
        else:
            print(f"memory-pipeline: no event: {result.skipped}", file=sys.stderr)
        return 0
    skip = observe_skip_reason(event)
    if args.json:
        print_json({"emitted": True, "path": str(result.path), "dedupeKey": event.data.dedupe_key,
                    "day": event.day, "project": event.data.project, "observed": skip is None, "note": skip})
    else:
        print(result.path)
        if skip:
            print(f"memory-pipeline: {skip}", file=sys.stderr)
    return 0
