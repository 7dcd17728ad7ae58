"""The memory-pipeline command. Thin: parses arguments, calls flows, prints results.

Exit codes: 0 ok, 1 operational error, 2 bad input.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
import sys

from memory_pipeline.config import configure_process
from memory_pipeline.errors import BadInputError, MemoryPipelineError

COMMAND_MODULES = ["events", "ingest", "demo", "status", "bench", "ui"]
COMMAND_MODULES += ["hook", "install_hooks", "import_cmd"]  # agent integration (issue 4)
COMMAND_MODULES += ["reflect", "review", "brief"]  # reflection, review and briefing (issue 3)
COMMAND_MODULES += ["recall"]  # recall and the recall service (issue 6)
COMMAND_MODULES += ["trace"]  # record-level lineage (issue 12)


def _no_definitions() -> object:
    raise MemoryPipelineError("this command runs Dagster jobs: start it with `memory-pipeline` "
                              "(memory_pipeline.main), which hands the CLI its definitions")


def build_parser() -> argparse.ArgumentParser:
    import importlib

    parser = argparse.ArgumentParser(
        prog="memory-pipeline",
        description="Durable, reviewable, searchable memory for coding agents.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"memory_pipeline.cli.{name}").register(sub)
    return parser


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


if __name__ == "__main__":
    sys.exit(main())
