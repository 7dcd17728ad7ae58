"""`memory-pipeline bench windows|snapshots`: the share of real sessions observed, and the bytes a
resumed session takes."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.cli.common import add_json_flag, console, print_json


def register_sessions(kinds) -> None:
    windows = kinds.add_parser("windows", help="share of real sessions observed: the old rule (5 user messages) "
                               "against the work rule, whole sessions and one process per turn")
    add_json_flag(windows)
    windows.set_defaults(handler=run_bench_windows)
    snapshots = kinds.add_parser("snapshots", help="workspace bytes for a real session resumed N times "
                                 "(its SessionEnd hook run after each step)")
    snapshots.add_argument("--resumes", type=int, default=25)
    snapshots.add_argument("--code", type=Path, help="run the hooks of this checkout instead (a before figure)")
    add_json_flag(snapshots)
    snapshots.set_defaults(handler=run_bench_snapshots)


def run_bench_windows(args) -> int:
    from benchmarks.observe_share import figures, measure

    rows = figures(measure())
    if args.json:
        print_json(rows)
        return 0
    out = console()
    for row in rows:
        out.print(f"{row['source']}: {row['sessions']} sessions, observed {row['observed_before']} → "
                      f"{row['observed_after']}; one process per turn: {row['turn_windows']} windows, "
                      f"turns observed {row['turns_observed_before']} → {row['turns_observed_after']}")
    return 0


def run_bench_snapshots(args) -> int:
    from benchmarks.resumed_session import REPO, bench_resumed_session

    figures = bench_resumed_session(resumes=args.resumes, code=(args.code or REPO).resolve())
    if args.json:
        print_json(figures)
        return 0
    out = console()
    for key, value in figures.items():
        out.print(f"{key}: {value:,}" if isinstance(value, int) else f"{key}: {value}")
    return 0
