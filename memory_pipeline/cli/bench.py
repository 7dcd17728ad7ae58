"""`memory-pipeline bench …`: benchmarks that print figures (never asserted in tests)."""

from __future__ import annotations

from memory_pipeline.cli.common import add_json_flag, console, print_json


def register(sub) -> None:
    bench = sub.add_parser("bench", help="run a benchmark and print its figures")
    kinds = bench.add_subparsers(dest="bench", required=True, metavar="BENCH")
    ingest = kinds.add_parser("ingest", help="N generated sessions through the whole ingest path")
    ingest.add_argument("--sessions", type=int, default=50)
    ingest.add_argument("--turns", type=int, default=8, help="user turns per session")
    add_json_flag(ingest)
    ingest.set_defaults(handler=run_bench_ingest)
    from memory_pipeline.cli.bench_recall import register_recall  # issue 6

    register_recall(kinds)


def run_bench_ingest(args) -> int:
    from memory_pipeline.bench.ingest import bench_ingest

    figures = bench_ingest(sessions=args.sessions, turns=args.turns)
    if args.json:
        print_json(figures)
        return 0
    out = console()
    for key, value in figures.items():
        out.print(f"{key:<34} {value}", highlight=False)
    return 0
