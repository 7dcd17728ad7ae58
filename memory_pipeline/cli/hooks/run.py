"""`memory-pipeline hooks run claude-code` (the old name `hook claude-code` is what settings.json holds): run by Claude Code with the hook JSON on stdin.

A hook must never break the agent: whatever happens, it exits 0; problems become one line on
stderr. Output for the agent (SessionStart) is one JSON object on stdout.
"""

from __future__ import annotations

import json
import sys


HELP = "handle one agent hook call (JSON on stdin); always exits 0"


def add_arguments(parser) -> None:
    parser.add_argument("agent", choices=["claude-code"])
    parser.add_argument("--refresh-recall", metavar="SESSION", help="(internal) fill the session's recall cache")
    parser.set_defaults(handler=run_hook)


def _note(text: str) -> None:
    print(f"memory-pipeline hook: {' '.join(str(text).split())}", file=sys.stderr)


def _workspace():
    """The workspace, not created here: a hook that refuses its input leaves no trace."""
    from memory_pipeline.config import Settings
    from memory_pipeline.resources.workspace import Workspace

    return Workspace(Settings.from_env().workspace)


def _handle(args) -> None:
    from memory_pipeline.stages.hooks.payload import MAX_STDIN_BYTES, parse_hook_payload

    if args.refresh_recall:
        from memory_pipeline.flows.hooks.context import refresh_recall_cache
        from memory_pipeline.stages.events import check_session_id

        result = refresh_recall_cache(_workspace(), check_session_id(args.refresh_recall))
    else:
        payload = parse_hook_payload(sys.stdin.buffer.read(MAX_STDIN_BYTES + 1))
        from memory_pipeline.flows.hooks.claude_code import run_claude_code_hook

        result = run_claude_code_hook(_workspace(), payload)
    if result.output is not None:
        sys.stdout.write(json.dumps(result.output, ensure_ascii=False) + "\n")
    if result.note:
        _note(result.note)


def run_hook(args) -> int:
    from memory_pipeline.errors import BadInputError, MemoryPipelineError

    try:
        _handle(args)
    except BadInputError as exc:
        _note(exc)
    except MemoryPipelineError as exc:
        _note(f"failed: {exc}")
    except Exception as exc:  # noqa: BLE001 — a hook must not break the agent; say what happened
        _note(f"internal error: {type(exc).__name__}: {exc}")
    return 0
