"""`memory-pipeline hooks run claude-code` (the old name `hook claude-code` is what settings.json
holds): run by Claude Code with the hook JSON on stdin.

A hook must never break the agent: whatever happens, it exits 0; problems become one line on
stderr. Output for the agent (SessionStart) is one JSON object on stdout. The console script
(`memory-pipeline hook claude-code`, as installed before) takes the fast door in
memory_pipeline/hook_entry.py instead; `python -m memory_pipeline.cli hook …` comes here.
"""

from __future__ import annotations

import sys

HELP = "handle one agent hook call (JSON on stdin); always exits 0"


def add_arguments(parser) -> None:
    parser.add_argument("agent", choices=["claude-code"])
    parser.add_argument("--refresh-recall", metavar="SESSION", help="(internal) fill the session's recall cache")
    parser.add_argument("--index-checkpoint", metavar="SESSION", help="(internal) index the session's task checkpoint")
    parser.set_defaults(handler=run_hook, bad_input_exit=0)


def run_hook(args) -> int:
    from memory_pipeline.flows.hooks.reply import checkpoint_reply, hook_reply, refresh_reply
    from memory_pipeline.stages.hooks.payload import MAX_STDIN_BYTES

    if args.refresh_recall:
        out, err = refresh_reply(args.refresh_recall, args.settings)
    elif args.index_checkpoint:
        out, err = checkpoint_reply(args.index_checkpoint, args.settings)
    else:
        out, err = hook_reply(sys.stdin.buffer.read(MAX_STDIN_BYTES + 1), args.settings)
    sys.stdout.write(out)
    sys.stderr.write(err)
    return 0
