"""`memory-pipeline secrets check [PATH…]` and `memory-pipeline secrets scrub` (old names
`redact-check`, `scrub`): audit a workspace for secrets, and rewrite what can be rewritten.

`secrets check` reads what each store holds, decoded (JSON, the rows of Qdrant's and Dagster's
SQLite files, Redis' append-only file), and exits 0 when nothing is found, 1 when something is (a
line per finding: the path, where in it — a line, a `table#row`, a Redis command — and the kinds of
secret, never the secret).
"""

from __future__ import annotations

import os
from pathlib import Path

from memory_pipeline.cli.common import add_alias, add_json_flag, file_label, open_workspace, print_json


def register(sub) -> None:
    parser = sub.add_parser("secrets", help="find secrets in the workspace, or redact them in every store")
    group = parser.add_subparsers(dest="secrets_action", required=True, metavar="ACTION")
    add_check_arguments(group.add_parser("check", help="scan a workspace (or PATHs) for anything that looks like a secret"))
    add_scrub_arguments(group.add_parser("scrub", help="redact secrets in every store of the workspace (files and Redis)"))
    add_alias(sub, "redact-check", "secrets check", add_check_arguments)
    add_alias(sub, "scrub", "secrets scrub", add_scrub_arguments)


def add_check_arguments(parser) -> None:
    parser.add_argument("paths", nargs="*", type=Path, help="files or folders (default: the workspace)")
    parser.add_argument("--jobs", type=_jobs, default=None, metavar="N",
                        help="processes reading files at once (default: one per CPU; 1 reads them in this one)")
    add_json_flag(parser)
    parser.set_defaults(handler=run_check)


def _jobs(text: str) -> int:
    import argparse

    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"--jobs takes a whole number of 1 or more, not {text!r}")
    return jobs


def add_scrub_arguments(parser) -> None:
    add_json_flag(parser)
    parser.set_defaults(handler=run_scrub)


def run_check(args) -> int:
    from memory_pipeline.errors import BadInputError

    roots = args.paths or [open_workspace(args.settings).root]
    for root in roots:
        if not root.exists():
            raise BadInputError(f"no such file or folder: {root}")
    report = _checked(roots, quiet=args.json, workers=args.jobs or os.cpu_count() or 1)
    found = report.findings
    if args.json:
        print_json({"findings": [f.__dict__ for f in found], "files": report.files, "unreadable": report.unreadable,
                    "binary": report.binary})
        return 1 if found else 0
    for finding in found:
        print(finding)
    for line in report.unreadable:
        print(f"not read: {line}")
    for path in report.binary:
        print(f"not read (binary, no reader for it): {path}")
    summary = f"{len(found)} place(s) look like they hold a secret" if found else "no secrets found"
    skipped = f"; {len(report.binary)} binary file(s) not read" if report.binary else ""
    print(f"{summary} in what was read ({report.files} file(s), decoded: JSON, SQLite rows, Redis commands{skipped})")
    return 1 if found else 0


def _checked(roots: list[Path], quiet: bool, workers: int):
    """`check_stores` with a progress bar on stderr: the bytes read of all there is, and the file last read."""
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn

    from memory_pipeline.flows.secrets import check_stores

    columns = (TextColumn("checking"), BarColumn(bar_width=24), DownloadColumn(), TimeElapsedColumn(),
               TextColumn("{task.description}"))
    with Progress(*columns, console=Console(stderr=True), transient=False, disable=quiet) as progress:
        task = progress.add_task("", total=None)

        def read(path: Path, size: int) -> None:
            progress.update(task, advance=size, description=file_label(path.name))

        return check_stores(roots, on_found=lambda total: progress.update(task, total=total), on_file=read,
                            workers=workers)


def run_scrub(args) -> int:
    from memory_pipeline.errors import MemoryPipelineError
    from memory_pipeline.flows.secrets import ScrubReport, scrub_files, scrub_redis
    from memory_pipeline.resources.redis.redis_store import connect_redis

    workspace, report, notes = open_workspace(args.settings), ScrubReport(), []
    try:
        scrub_redis(connect_redis(args.settings.redis_url, workspace.state, args.settings.redis_idle_timeout,
                                  args.settings.runtime_dir), report)
    except MemoryPipelineError as exc:
        notes.append(f"Redis not scrubbed: {exc}")
    scrub_files(workspace.root, report)
    left = 1 if report.not_rewritable else 0  # a secret is still there: not a success
    if args.json:
        print_json({**report.__dict__, "notes": notes})
        return left
    print(f"rewrote {len(report.files)} file(s) and {report.redis_keys} Redis value(s)")
    for path in report.not_rewritable:
        print(f"still holds a secret (a store that cannot be rewritten in place; rebuild it): {path}")
    for path in report.binary:
        print(f"not read (binary, no reader for it; not known to be clean): {path}")
    for note in notes:
        print(note)
    return left
