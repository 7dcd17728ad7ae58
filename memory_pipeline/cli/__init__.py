"""The memory-pipeline command. Thin: parses arguments, calls flows, prints results.

Exit codes: 0 ok, 1 operational error, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from memory_pipeline.config import configure_process
from memory_pipeline.errors import BadInputError, MemoryPipelineError, disk_full_at


def _no_definitions() -> object:
    raise MemoryPipelineError("this command runs Dagster jobs: start it with `memory-pipeline` "
                              "(memory_pipeline.main), which hands the CLI its definitions")


OLD_NAMES = """old names, still working: status, stop, ui, recall-service → service …; hook, install-hooks →
hooks run|install; redact-check, scrub → secrets check|scrub; pack → ledger pack"""


def build_parser() -> argparse.ArgumentParser:
    from memory_pipeline.cli import (
        brief,
        demo,
        emit,
        feedback,
        friction,
        hooks,
        import_,
        ingest,
        ledger,
        maintain,
        recall,
        reflect,
        review,
        secrets,
        service,
        trace,
    )

    commands = [emit, import_, ingest, recall, brief, review, reflect, ledger, maintain, feedback, friction, trace,
                service, hooks, secrets, demo]
    parser = argparse.ArgumentParser(
        prog="memory-pipeline",
        description="Durable, reviewable, searchable memory for coding agents.",
        epilog=OLD_NAMES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in commands:
        command.register(sub)
    register_bench(sub)
    return parser


def register_bench(sub) -> None:
    """`bench …` comes from the benchmarks package (benchmarks/, outside the runtime package): the one
    place the runtime imports it. Without it, `bench` says how to get it."""
    try:
        from benchmarks.cli import register
    except ModuleNotFoundError as exc:
        if exc.name not in ("benchmarks", "benchmarks.cli"):
            raise
        parser = sub.add_parser("bench", help="run a benchmark and print its figures (needs the benchmarks package)")
        parser.add_argument("rest", nargs=argparse.REMAINDER, help="the benchmark and its options")
        parser.set_defaults(handler=_no_benchmarks)
        return
    register(sub)


def _no_benchmarks(args) -> int:
    raise MemoryPipelineError("the benchmarks are not installed: they live in the benchmarks/ folder of a "
                              "memory-pipeline checkout; install that checkout (`pip install -e .`) to run them")


def main(argv: list[str] | None = None, load_definitions: Callable[[], object] | None = None) -> int:
    """Run one command. `load_definitions` builds the Dagster definitions for the commands that run
    jobs (ingest, reflect, demo, bench); memory_pipeline.main hands it in."""
    configure_process()
    parser = build_parser()
    args = parser.parse_args(argv)
    args.definitions = load_definitions or _no_definitions
    try:
        return int(args.handler(args) or 0)
    except BadInputError as exc:
        print(f"memory-pipeline: {exc}", file=sys.stderr)
        return 2
    except MemoryPipelineError as exc:
        print(f"memory-pipeline: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a full disk anywhere below (ENOSPC, sqlite's "disk is full"): one line, exit 1
        where = disk_full_at(exc, default=_workspace_hint())
        if where is None:
            raise
        print(f"memory-pipeline: disk full at {where}", file=sys.stderr)
        return 1


def _workspace_hint() -> str:
    try:
        from memory_pipeline.config import Settings

        return str(Settings.from_env().workspace)
    except Exception:  # the hint must never hide the disk-full message
        return "the workspace"


if __name__ == "__main__":
    sys.exit(main())
