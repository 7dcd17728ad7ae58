"""`memory-pipeline bench recall --quality | --speed`: recall quality (lme-dev, LoCoMo) and recall latency."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.cli.common import add_json_flag, console, print_json
from memory_pipeline.errors import BadInputError


def register_recall(kinds) -> None:
    parser = kinds.add_parser("recall", help="recall quality on lme-dev and LoCoMo (--quality) or latency (--speed)")
    parser.add_argument("--quality", action="store_true",
                        help="lme-dev and LoCoMo recall@5/@10 per question type, beside BM25 over the same turns")
    parser.add_argument("--speed", action="store_true", help="p50/p95 latency at 1k, 10k, 100k points")
    parser.add_argument("--data", help="LoCoMo JSON (default ../shared/bench/locomo-dev.json)")
    parser.add_argument("--lme", help="lme-dev folder (default ../shared/bench/lme-dev; 'none' to leave it out)")
    parser.add_argument("--workdir", help="keep the ingested (--quality) or filled (--speed) workspaces here, "
                        "reused on the next run")
    parser.add_argument("--conversations", type=int, help="only the first N conversations")
    parser.add_argument("--sessions", type=int, help="only the first N sessions of each conversation")
    parser.add_argument("--by-age", action="store_true",
                        help="quality: a generated 3-year history, recall@10 by evidence age (--sessions, default 540)")
    parser.add_argument("--seed", type=int, default=7, help="--by-age: the history's seed")
    parser.add_argument("--credit-all-sources", action="store_true",
                        help="credit hits citing more than 5 message ids too (default: no credit)")
    parser.add_argument("--sizes", default="1000,10000,100000", help="speed: point counts")
    parser.add_argument("--queries", type=int, default=200, help="speed: queries per size")
    parser.add_argument("--memory-cap", type=int, metavar="MB",
                        help="speed: run the recall service in a memory cgroup of MB MiB (root; the page cache "
                        "is dropped first, so what the service reads is charged to it)")
    add_json_flag(parser)
    parser.set_defaults(handler=run_bench_recall)


def run_bench_recall(args) -> int:
    if args.quality == args.speed:
        raise BadInputError("choose one of --quality or --speed")
    if args.quality and args.by_age:
        from benchmarks.recall_by_age import bench_recall_by_age

        figures = bench_recall_by_age(Path(args.workdir) if args.workdir else None, args.sessions or 540, args.seed)
        return print_quality(figures) if not args.json else (print_json(figures) or 0)
    if args.quality:
        return _run_quality(args)
    from benchmarks.recall_speed import bench_recall_speed

    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError as exc:
        raise BadInputError(f"--sizes must be numbers separated by commas: {args.sizes}") from exc
    if args.memory_cap is not None and args.memory_cap < 64:
        raise BadInputError(f"--memory-cap is in MiB and the service needs at least 64: {args.memory_cap}")
    figures = bench_recall_speed(sizes, queries=args.queries, workdir=Path(args.workdir) if args.workdir else None,
                                 memory_cap_mb=args.memory_cap)
    if args.json:
        print_json(figures)
        return 0
    out = console()
    for row in figures["rows"]:
        out.print("  ".join(f"{k}={v}" for k, v in row.items()), highlight=False)
    for key, value in figures.items():
        if key != "rows":
            out.print(f"{key}: {value}", highlight=False)
    return 0


def _run_quality(args) -> int:
    from benchmarks.lme import DEFAULT_LME
    from benchmarks.locomo import DEFAULT_DATA
    from benchmarks.recall_quality import bench_recall_quality

    # no MEMORY_PARTITIONS_START: `import` reaches back to a folder's oldest session by itself, as for a user
    data = Path(args.data).expanduser() if args.data else DEFAULT_DATA
    if not data.is_file():
        raise BadInputError(f"LoCoMo data not found: {data}")
    lme = None if args.lme == "none" else Path(args.lme).expanduser() if args.lme else DEFAULT_LME
    if lme is not None and not (lme / "questions.jsonl").is_file():
        raise BadInputError(f"lme-dev not found: {lme} (no questions.jsonl); --lme none leaves it out")
    figures = bench_recall_quality(data, lme, Path(args.workdir) if args.workdir else None, args.conversations,
                                   args.sessions, None if args.credit_all_sources else 5)
    if args.json:
        print_json(figures)
        return 0
    _print_rows(figures.pop("summary"), "this project (product defaults via import) beside BM25 over the same turns")
    return print_quality(figures)


def _print_rows(rows: list[dict], title: str = "") -> None:
    """Plain fixed-width lines: a question type's or a variant's name is never cut short."""
    out = console()
    if title:
        out.print(title, highlight=False)
    if not rows:
        return
    widths = {key: max(len(key), *(len(str(row.get(key, ""))) for row in rows)) for key in rows[0]}
    for cells in ([*widths], *([str(row.get(key, "")) for key in widths] for row in rows)):
        line = "  ".join(cell.ljust(widths[key]) for cell, key in zip(cells, widths)).rstrip()
        out.print(line, highlight=False, soft_wrap=True)


def print_quality(figures: dict) -> int:
    _print_rows(figures["rows"])
    for key, value in figures.items():
        if key != "rows":
            console().print(f"{key}: {value}", highlight=False, soft_wrap=True)
    return 0
