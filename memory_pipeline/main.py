"""The memory-pipeline command's entry point: the CLI, handed the Dagster definitions it runs jobs
from. The one place above both cli/ and defs/; the definitions load only when a command runs a job."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import dagster as dg


def load_definitions() -> "dg.Definitions":
    from memory_pipeline.definitions import defs

    return defs()


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:] == ["hook", "claude-code"]:  # the hook command as installed: fast door
        from memory_pipeline import hook_entry

        return hook_entry.main(sys.argv[1:])
    from memory_pipeline import cli

    return cli.main(argv, load_definitions)


if __name__ == "__main__":
    sys.exit(main())
