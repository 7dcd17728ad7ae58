"""The memory-pipeline command. Thin: parses arguments, calls flows, prints results.

Exit codes: 0 ok, 1 operational error, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable

from memory_pipeline.config import Settings, configure_process
from memory_pipeline.errors import BadInputError, MemoryPipelineError, disk_full_at, is_disk_io_error


def _no_definitions() -> object:
    raise MemoryPipelineError("this command runs Dagster jobs: start it with `memory-pipeline` "
                              "(memory_pipeline.main), which hands the CLI its definitions")


OLD_NAMES = """old names, still working: status, stop, ui, recall-service → service …; hook, install-hooks →
hooks run|install; redact-check, scrub → secrets check|scrub; pack → ledger pack"""


def build_parser(extra_commands: Iterable[Callable] = ()) -> argparse.ArgumentParser:
    """The command line; `extra_commands` (each `register(sub)`) add commands from outside the
    runtime package (memory_pipeline.main hands in `bench`)."""
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
        mcp,
        provider,
        recall,
        reflect,
        review,
        secrets,
        service,
        store,
        trace,
    )

    commands = [emit, import_, ingest, recall, brief, review, reflect, ledger, maintain, feedback, friction, trace,
                service, store, hooks, secrets, mcp, provider, demo]
    parser = argparse.ArgumentParser(
        prog="memory-pipeline",
        description="Durable, reviewable, searchable memory for coding agents.",
        epilog=OLD_NAMES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in commands:
        command.register(sub)
    for register in extra_commands:
        register(sub)
    return parser


def main(argv: list[str] | None = None, load_definitions: Callable[[], object] | None = None,
         extra_commands: Iterable[Callable] = ()) -> int:
    """Run one command. `load_definitions` builds the Dagster definitions for the commands that run
    jobs (ingest, reflect, demo, bench); memory_pipeline.main hands it in, with the `bench` command."""
    configure_process()
    parser = build_parser(extra_commands)
    args = parser.parse_args(argv)
    args.definitions = load_definitions or _no_definitions
    try:
        args.settings = Settings.from_env()  # built once, here; every command takes it from args
        return int(args.handler(args) or 0)
    except BadInputError as exc:  # a bad setting too; a hook says so and exits 0 (it must not break the agent)
        print(f"memory-pipeline: {exc}", file=sys.stderr)
        return getattr(args, "bad_input_exit", 2)
    except MemoryPipelineError as exc:
        print(f"memory-pipeline: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a full disk anywhere below (ENOSPC, sqlite's "disk is full"): one line, exit 1
        where = disk_full_at(exc, default=_workspace_hint(args))
        if where is not None:
            print(f"memory-pipeline: disk full at {where}", file=sys.stderr)
            return 1
        if is_disk_io_error(exc):  # sqlite on a full tmpfs says only this
            where = _workspace_hint(args)
            free = _free_kb(where)
            if free is not None and free < 1024:
                print(f"memory-pipeline: disk full at {where} ({free} KB free; sqlite: disk I/O error)", file=sys.stderr)
            else:
                print(f"memory-pipeline: disk I/O error at {where}: the disk is failing or was full", file=sys.stderr)
            return 1
        raise


def _free_kb(path: str) -> int | None:
    import os

    try:
        info = os.statvfs(path)
    except OSError:
        return None
    return info.f_bavail * info.f_frsize // 1024


def _workspace_hint(args) -> str:
    settings = getattr(args, "settings", None)  # the hint must never hide the disk-full message
    return str(settings.workspace) if settings is not None else "the workspace"


if __name__ == "__main__":
    sys.exit(main())
