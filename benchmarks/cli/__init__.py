"""`memory-pipeline bench …`: benchmarks that print figures (never asserted in tests)."""

from __future__ import annotations

from memory_pipeline.cli.common import add_json_flag, console, print_json

LATENCY_PHASES = ("status", "recall", "emit", "day")


def register(sub) -> None:
    bench = sub.add_parser("bench", help="run a benchmark and print its figures")
    kinds = bench.add_subparsers(dest="bench", required=True, metavar="BENCH")
    ingest = kinds.add_parser("ingest", help="N generated sessions through the whole ingest path")
    ingest.add_argument("--sessions", type=int, default=50)
    ingest.add_argument("--turns", type=int, default=8, help="user turns per session")
    ingest.add_argument("--big-transcript", action="store_true",
                        help="instead: one generated huge Claude Code session (import, then ingest): time, peak RSS")
    ingest.add_argument("--size-mb", type=float, default=57.0, help="size of the --big-transcript session")
    ingest.add_argument("--tiny-messages", type=int, default=0, metavar="N",
                        help="instead: one generated session of N few-word messages (import, then ingest)")
    add_json_flag(ingest)
    ingest.set_defaults(handler=run_bench_ingest)
    soak = kinds.add_parser("soak", help="D days x S sessions, one ingest run a day: time, memory, stores, recall")
    soak.add_argument("--days", type=int, default=30)
    soak.add_argument("--sessions-per-day", type=int, default=50)
    soak.add_argument("--turns", type=int, default=6, help="user turns per session")
    soak.add_argument("--queries", type=int, default=50, help="recall queries timed at the end")
    add_json_flag(soak)
    soak.set_defaults(handler=run_bench_soak)
    pack = kinds.add_parser("pack", help="recall pack build time and peak memory for 1k/10k/100k ledger events")
    pack.add_argument("--sizes", default="1000,10000,100000", help="comma-separated ledger sizes")
    pack.add_argument("--quality", action="store_true",
                      help="instead: precision and recall of the pack's sections on labelled transcripts")
    pack.add_argument("--transcripts", help="shared transcripts folder (default ../shared/fixtures/transcripts)")
    add_json_flag(pack)
    pack.set_defaults(handler=run_bench_pack)
    from benchmarks.cli.recall import register_recall  # issue 6

    register_recall(kinds)
    from benchmarks.cli.quality import register_quality  # issue 13

    register_quality(kinds)
    from benchmarks.cli.maintenance import register_maintenance  # issue 15

    register_maintenance(kinds)
    hooks = kinds.add_parser("hooks", help="milliseconds each Claude Code hook call costs, per event: the full CLI "
                             "against the installed fast door (medians, p95)")
    hooks.add_argument("--runs", type=int, default=20, help="calls per event and command")
    add_json_flag(hooks)
    hooks.set_defaults(handler=run_bench_hooks)
    from benchmarks.cli.sessions import register_sessions  # issue 24

    register_sessions(kinds)
    mcp = kinds.add_parser("mcp", help="the memory MCP server's search and get latency at the MCP client "
                           "(p50/p95, warm) over N synthetic points")
    mcp.add_argument("--points", type=int, default=10_000)
    mcp.add_argument("--queries", type=int, default=200, help="warm searches timed")
    add_json_flag(mcp)
    mcp.set_defaults(handler=run_bench_mcp)
    redaction = kinds.add_parser("redaction", help="redaction precision and recall on its labelled set "
                                 "(benchmarks/labels/redaction.json), with the shapes it misses")
    redaction.add_argument("--labels", help="a labelled set in the same format (default: the shipped one)")
    add_json_flag(redaction)
    redaction.set_defaults(handler=run_bench_redaction)
    from benchmarks.cli.engine import register_engine  # issue 28

    register_engine(kinds)
    latency = kinds.add_parser("latency", help="seconds a user waits: status, cold recall, emit → daily log "
                               "under dagster dev, a seed-scale day through ingest (medians)")
    latency.add_argument("--runs", type=int, default=5, help="runs per figure (medians)")
    latency.add_argument("--only", default=",".join(LATENCY_PHASES),
                         help=f"comma-separated phases of {','.join(LATENCY_PHASES)}")
    latency.add_argument("--sessions", type=int, default=23, help="sessions in the ingested day")
    latency.add_argument("--fixtures", help="transcript fixtures (default ../shared/fixtures/transcripts)")
    add_json_flag(latency)
    latency.set_defaults(handler=run_bench_latency)


def run_bench_hooks(args) -> int:
    from benchmarks.hooks import bench_hooks
    from memory_pipeline.errors import BadInputError

    if args.runs < 1:
        raise BadInputError("--runs must be at least 1")
    return print_figures(args, bench_hooks(runs=args.runs), width=31)


def run_bench_ingest(args) -> int:
    from benchmarks.ingest import bench_ingest
    from benchmarks.ingest_big import bench_big_transcript
    from memory_pipeline.errors import BadInputError

    if args.tiny_messages:
        if not 0 < args.tiny_messages <= 1_000_000:
            raise BadInputError("--tiny-messages must be above 0 and at most 1000000")
        figures = bench_big_transcript(args.definitions, tiny_messages=args.tiny_messages)
    elif args.big_transcript:
        if not 0 < args.size_mb <= 60:
            raise BadInputError("--size-mb must be above 0 and at most 60 (transcripts over 64 MiB are refused)")
        figures = bench_big_transcript(args.definitions, size_mb=args.size_mb)
    else:
        figures = bench_ingest(args.definitions, sessions=args.sessions, turns=args.turns)
    return print_figures(args, figures, width=34)


def run_bench_soak(args) -> int:
    from benchmarks.soak import bench_soak
    from memory_pipeline.errors import BadInputError

    if args.days < 1 or args.sessions_per_day < 1 or args.queries < 1:
        raise BadInputError("--days, --sessions-per-day and --queries must be at least 1")
    out = console()
    report = None if args.json else (lambda n, total, s: out.log(f"day {n}/{total}: {s:.1f}s"))
    figures = bench_soak(args.definitions, days=args.days, sessions_per_day=args.sessions_per_day, turns=args.turns,
                         queries=args.queries, progress=report)
    return print_figures(args, figures, width=28)


def run_bench_pack(args) -> int:
    from benchmarks.pack import bench_pack
    from memory_pipeline.errors import BadInputError

    if args.quality:
        from benchmarks.cli.quality import run_bench_pack_quality

        return run_bench_pack_quality(args)

    try:
        sizes = tuple(int(s) for s in args.sizes.split(",") if s.strip())
    except ValueError as exc:
        raise BadInputError(f"--sizes {args.sizes!r} is not a list of whole numbers") from exc
    if not sizes or min(sizes) < 1:
        raise BadInputError("--sizes needs at least one size of 1 or more")
    rows = bench_pack(sizes)
    if args.json:
        print_json(rows)
        return 0
    out = console()
    for row in rows:
        out.print("  ".join(f"{key} {value}" for key, value in row.items()), highlight=False)
    return 0


def run_bench_latency(args) -> int:
    from pathlib import Path

    from benchmarks.latency import bench_latency
    from memory_pipeline.errors import BadInputError

    phases = tuple(p.strip() for p in args.only.split(",") if p.strip())
    if not phases or set(phases) - set(LATENCY_PHASES) or args.runs < 1 or args.sessions < 1:
        raise BadInputError(f"--only takes phases of {','.join(LATENCY_PHASES)}; --runs and --sessions at least 1")
    out = console()
    figures = bench_latency(phases, runs=args.runs, day_sessions=args.sessions,
                            fixtures=Path(args.fixtures) if args.fixtures else None,
                            progress=None if args.json else out.log)
    return print_figures(args, figures, width=22)


def run_bench_mcp(args) -> int:
    from benchmarks.mcp import bench_mcp
    from memory_pipeline.errors import BadInputError

    if args.points < 1 or args.queries < 1:
        raise BadInputError("--points and --queries must be at least 1")
    return print_figures(args, bench_mcp(points=args.points, queries=args.queries), width=20)


def run_bench_redaction(args) -> int:
    from pathlib import Path

    from benchmarks.redaction import LABELS, bench_redaction

    return print_figures(args, bench_redaction(Path(args.labels) if args.labels else LABELS), width=16)


def print_figures(args, figures: dict, width: int) -> int:
    """A bench's figures: JSON with --json, else one `key value` line each."""
    if args.json:
        print_json(figures)
        return 0
    out = console()
    for key, value in figures.items():
        out.print(f"{key:<{width}} {value}", highlight=False)
    return 0
