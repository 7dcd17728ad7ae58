"""`memory-pipeline bench maintenance`: nightly maintenance on the LoCoMo dev workspaces and the shared
real transcripts (merged, stale, bytes reclaimed; LoCoMo recall@10 before and after)."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.cli.common import add_json_flag, print_json
from memory_pipeline.errors import BadInputError


def register_maintenance(kinds) -> None:
    parser = kinds.add_parser("maintenance", help="what maintenance does to imported histories, recall@10 before/after")
    parser.add_argument("--data", help="LoCoMo JSON (default ../shared/bench/locomo-dev.json)")
    parser.add_argument("--transcripts", help="transcripts folder (default ../shared/fixtures/transcripts)")
    parser.add_argument("--no-transcripts", action="store_true", help="LoCoMo only")
    parser.add_argument("--workdir", help="keep the workspaces here (made afresh on each run)")
    parser.add_argument("--conversations", type=int, help="only the first N conversations")
    add_json_flag(parser)
    parser.set_defaults(handler=run_bench_maintenance)


def run_bench_maintenance(args) -> int:
    from benchmarks.locomo import DEFAULT_DATA, LOCOMO_START
    from benchmarks.maintenance_quality import TRANSCRIPTS, bench_maintenance
    from benchmarks.cli.recall import print_quality
    from memory_pipeline.config import Settings, set_process_environment

    # LoCoMo and the transcripts are dated from 2023 on: the partitions must reach back there
    set_process_environment(MEMORY_PARTITIONS_START=Settings.from_env().partitions_start or LOCOMO_START)
    data = Path(args.data).expanduser() if args.data else DEFAULT_DATA
    transcripts = Path(args.transcripts).expanduser() if args.transcripts else TRANSCRIPTS
    transcripts = None if args.no_transcripts else transcripts
    for path, is_dir in ((data, False), (transcripts, True)):
        if path is not None and not (path.is_dir() if is_dir else path.is_file()):
            raise BadInputError(f"not found: {path}")
    figures = bench_maintenance(data, transcripts, Path(args.workdir) if args.workdir else None, args.conversations)
    return print_json(figures) or 0 if args.json else print_quality(figures)
