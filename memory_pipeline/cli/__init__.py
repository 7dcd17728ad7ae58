"""The memory-pipeline command. Thin: parses arguments, calls flows, prints results.

Exit codes: 0 ok, 1 operational error, 2 bad input.
"""

from __future__ import annotations

import argparse
import os
import sys

from memory_pipeline.errors import BadInputError, MemoryPipelineError

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("TQDM_DISABLE", "1")  # no model-loading progress bars in our output

COMMAND_MODULES = ["events", "ingest", "demo", "status", "bench", "ui"]
COMMAND_MODULES += ["hook", "install_hooks", "import_cmd"]  # agent integration (issue 4)
COMMAND_MODULES += ["reflect", "review", "brief"]  # reflection, review and briefing (issue 3)
COMMAND_MODULES += ["recall"]  # recall and the recall service (issue 6)


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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
