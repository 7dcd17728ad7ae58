"""`memory-pipeline bench engine`: today's vector engine and Qdrant Edge side by side (issue 28)."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.cli.common import add_json_flag, console, print_json
from memory_pipeline.errors import BadInputError

DEFAULT_KNOBS = "on-disk+int8+m8,shipped"
COLUMNS = (("points", 8), ("engine", 22), ("insert_s", 9), ("index_s", 8), ("build_rss_mb", 13), ("build_anon_mb", 14),
           ("segments", 9), ("p50_ms", 7), ("p95_ms", 7), ("rrf_p95_ms", 11), ("indexed", 9), ("cold_ms", 8),
           ("open_ms", 8), ("open_read_mb", 13), ("open_cpu_ms", 12), ("rss_mb", 7), ("anon_mb", 8), ("disk_mb", 8), ("wal_mb", 7),
           ("overlap10", 10))


def register_engine(kinds) -> None:
    parser = kinds.add_parser("engine", help="today's store + recall index against Qdrant Edge: insert, HNSW build, "
                              "warm/cold recall, RSS, disk, kill -9 during a write; --quality: LoCoMo recall@10")
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated point counts")
    parser.add_argument("--knobs", default=DEFAULT_KNOBS, help="Edge settings to try, comma-separated: "
                        "shipped (the product's shard) or a name from KNOBS in benchmarks/engine_edge.py")
    parser.add_argument("--queries", type=int, default=200, help="warm queries per engine and size")
    parser.add_argument("--store-max", type=int, default=10_000,
                        help="today's points go through the store up to this size, past it into the recall cache")
    parser.add_argument("--today-max", type=int, default=200_000,
                        help="today's engine is measured up to this size (its index needs GBs past it)")
    parser.add_argument("--no-kill", action="store_true", help="skip the kill -9 during a write")
    parser.add_argument("--days", type=int, default=14,
                        help="days of a heavy user's history (1,000 messages a day, the real message lengths) "
                        "through import and ingest, and the embedding model alone on the same texts; 0: skip")
    parser.add_argument("--per-day", type=int, default=1000, help="indexed messages a day in that history")
    parser.add_argument("--onto", metavar="WORKSPACE", help="ingest that history into a copy of this filled "
                        "workspace's shard (e.g. `bench recall --speed --workdir DIR`'s DIR/points-1000000): "
                        "the days' indexing at a year's size and more")
    parser.add_argument("--quality", action="store_true", help="instead: recall@10 of both engines on LoCoMo turns")
    parser.add_argument("--data", help="LoCoMo JSON (default ../shared/bench/locomo-dev.json)")
    add_json_flag(parser)
    parser.set_defaults(handler=run_bench_engine)


def run_bench_engine(args) -> int:
    try:
        import qdrant_edge  # noqa: F401
    except ImportError as exc:
        raise BadInputError("bench engine needs Qdrant Edge (qdrant-edge-py, a dependency): reinstall memory-pipeline") from exc
    if args.quality:
        from benchmarks.engine_quality import bench_engine_quality
        from benchmarks.locomo import DEFAULT_DATA

        data = Path(args.data).expanduser() if args.data else DEFAULT_DATA
        if not data.is_file():
            raise BadInputError(f"LoCoMo data not found: {data}")
        figures = bench_engine_quality(data)
        if args.json:
            print_json(figures)
        else:
            for key, value in figures.items():
                console().print(f"{key:<22} {value}", highlight=False)
        return 0
    from benchmarks.engine import bench_engine
    from benchmarks.engine_edge import KNOBS

    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError as exc:
        raise BadInputError(f"--sizes must be numbers separated by commas: {args.sizes}") from exc
    knobs = [k.strip() for k in args.knobs.split(",") if k.strip()]
    unknown = [k for k in knobs if k not in KNOBS]
    if unknown or not sizes:
        raise BadInputError(f"unknown --knobs {unknown}; choose from {', '.join(KNOBS)}" if unknown else "no --sizes")
    if args.days < 0 or args.per_day < 1:
        raise BadInputError(f"--days must be 0 or more and --per-day 1 or more: {args.days}, {args.per_day}")
    figures = bench_engine(sizes, knobs, queries=args.queries, store_max=args.store_max, kill=not args.no_kill,
                           today_max=args.today_max, days=args.days, per_day=args.per_day,
                           onto=Path(args.onto).expanduser() if args.onto else None)
    if args.json:
        print_json(figures)
        return 0
    print_table(figures)
    return 0


def print_table(figures: dict) -> None:
    out = console()
    out.print("".join(f"{name:>{width}}" for name, width in COLUMNS), highlight=False,
              soft_wrap=True)
    for row in figures["rows"]:
        out.print("".join(f"{'-' if row.get(name) is None else row[name]!s:>{width}}" for name, width in COLUMNS),
                  highlight=False, soft_wrap=True)
    for row in figures.get("history", []):
        out.print(history_line(row), highlight=False, soft_wrap=True)
    for kill in figures["kill"]:
        out.print(f"kill -9 during a write, {kill['engine']}: {kill['acknowledged']} points acknowledged, "
                  f"{kill['held']} held after reopening, {kill['lost']} lost", highlight=False, soft_wrap=True)
    out.print(f"load average {', '.join(f'{x:.1f}' for x in figures['load'])}; query vectors given (the embedding "
              "model is in neither figure); build_* = the building process's peak RSS and anonymous peak; rss = a "
              "fresh process's peak (VmHWM) opening the store and answering 101 queries, anon/file its split at the "
              "end; open_ms = open + first query; open_read_mb / open_cpu_ms = the open's disk reads and CPU", highlight=False,
              soft_wrap=True)


def history_line(row: dict) -> str:
    """One engine's history row: its own figures, or the last ones measured (dated) where it no longer runs."""
    if row.get("source"):
        return f"history through ingest, {row['engine']}: {row['figures']} [{row['source']}]"
    return (f"history through ingest, {row['engine']}: {row['days']} days x {row['per_day']} messages "
            f"({row['messages']} messages, {row['sessions']} sessions, {row['transcript_mb']} MB of transcripts): "
            f"import {row['import_s']} s, ingest {row['ingest_s']} s ({row['runs']} runs); message index "
            f"{row['index_msgs_per_s']} messages/s embedded and stored ({row['embedded']} in "
            f"{row['message_index_s']} s), the model alone on the same texts {row['model_msgs_per_s']}/s "
            f"({row['model_texts']} in {row['model_s']} s, "
            f"{row['embedding_device']}): ratio {row['ratio']} (target >= 0.9; the index's calls into the model "
            f"{row['ratio_model_calls']}); ingest peak RSS {row['peak_rss_mb']} MB (anon {row['peak_anon_mb']}); "
            f"store {row['store_mb']} MB on disk; load {row['load_before'][0]} -> {row['load_after'][0]}")
