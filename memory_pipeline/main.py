"""The memory-pipeline command's entry point: the CLI, handed the Dagster definitions it runs jobs
from and the `bench` command of the benchmarks package. The one place above cli/, defs/ and
benchmarks/; the definitions load only when a command runs a job."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from memory_pipeline.errors import MemoryPipelineError

if TYPE_CHECKING:
    import dagster as dg


def load_definitions() -> dg.Definitions:
    from memory_pipeline.definitions import defs

    return defs()


def register_bench(sub) -> None:
    """`bench …` comes from the benchmarks package (benchmarks/, outside the runtime package): the one
    place that imports it. Without it, `bench` says how to get it."""
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


def build_parser() -> argparse.ArgumentParser:
    from memory_pipeline import cli

    return cli.build_parser([register_bench])


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:] == ["hook", "claude-code"]:  # the hook command as installed: fast door
        from memory_pipeline import hook_entry

        return hook_entry.main(sys.argv[1:])
    if argv is None and sys.argv[1:] == ["mcp"]:  # the MCP server: its own fast door
        from memory_pipeline import mcp_entry

        return mcp_entry.main()
    from memory_pipeline import cli

    return cli.main(argv, load_definitions, [register_bench])


if __name__ == "__main__":
    sys.exit(main())
