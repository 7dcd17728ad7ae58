"""`memory-pipeline trace TARGET`: from a MEMORY.md line (its number or some of its text), a
proposal id, or an observation, fact or recall hit id back to the transcript messages it came from."""

from __future__ import annotations

from memory_pipeline.cli.common import add_json_flag, console, open_workspace, print_json


def register(sub) -> None:
    parser = sub.add_parser(
        "trace", help="follow a MEMORY.md line, proposal or recall hit back to its transcript messages",
        description="Prints the chain MEMORY.md line → proposal (who approved it, when, edits) → reflection → "
        "observation facts (Observer prompt sha and model) → session event → transcript and the cited messages "
        "(quoted, redacted). Whatever cannot be found is listed as `not found`.")
    parser.add_argument("target", nargs="+", help="a MEMORY.md line number or text, p-YYYYMMDD-NNN-xxxx, or an "
                                                  "observation/fact/recall hit id")
    add_json_flag(parser)
    parser.set_defaults(handler=run_trace)


def run_trace(args) -> int:
    from memory_pipeline.errors import ServiceError
    from memory_pipeline.flows.review.actions import open_proposals
    from memory_pipeline.flows.trace import trace_target
    from memory_pipeline.stages.trace import render_trace

    workspace, settings = open_workspace(args.settings), args.settings
    try:
        store = open_proposals(workspace, settings)
    except ServiceError:
        store = None  # the files still tell most of the story
    trace = trace_target(workspace, store, " ".join(args.target), settings)
    if args.json:
        print_json(trace.as_dict())
    else:
        out = console()
        for line in render_trace(trace):
            out.print(line, markup=False, highlight=False, soft_wrap=True)
    return 0
