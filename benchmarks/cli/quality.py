"""`memory-pipeline bench observe --quality` and `bench reflect --quality`: what the Observer keeps
(coverage, noise and facts per turn on LoCoMo; precision and recall on labelled coding sentences),
what the Reflector proposes (precision and recall on labelled proposals, change logs, useful
proposals per 10 sessions) and what the recall pack's sections hold (`bench pack --quality`)."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.cli.common import add_json_flag, console, print_json
from memory_pipeline.errors import BadInputError

SHARED_TRANSCRIPTS = Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures" / "transcripts"


def register_quality(kinds) -> None:
    observe = kinds.add_parser("observe", help="Observer quality: LoCoMo coverage/noise, coding precision/recall")
    observe.add_argument("--quality", action="store_true", help="the quality report (the only observe benchmark)")
    observe.add_argument("--data", help="LoCoMo JSON (default ../shared/bench/locomo-dev.json)")
    observe.add_argument("--sessions", type=int, help="only the first N sessions of each conversation")
    observe.add_argument("--transcripts", help="shared transcripts folder (default ../shared/fixtures/transcripts)")
    observe.add_argument("--coding", action="store_true", help="only the labelled coding sentences (no LoCoMo)")
    add_json_flag(observe)
    observe.set_defaults(handler=run_bench_observe)
    reflect = kinds.add_parser("reflect", help="Reflector quality: precision and recall on labelled proposals")
    reflect.add_argument("--quality", action="store_true", help="the quality report (the only reflect benchmark)")
    reflect.add_argument("--transcripts", help="shared transcripts folder (default ../shared/fixtures/transcripts)")
    add_json_flag(reflect)
    reflect.set_defaults(handler=run_bench_reflect)
    worth = kinds.add_parser("worth", help="is memory worth reading: the default path (import, ingest, reflect "
                             "--backfill, offline) on the shared transcripts, scored by the durable-dev labels")
    worth.add_argument("--transcripts", help="shared transcripts folder (default ../shared/fixtures/transcripts)")
    worth.add_argument("--labels", help="folder with labels.json in the durable-dev format, and score.py or the "
                       "shared one is used (default ../shared/bench/durable-dev; benchmarks/labels/second_pi_session "
                       "labels pi-mono's large-session.jsonl, see its README)")
    worth.add_argument("--keep", help="build the workspace and briefings in this folder and keep them")
    worth.add_argument("-v", "--verbose", action="store_true", help="also print each entry's verdict")
    add_json_flag(worth)
    worth.set_defaults(handler=run_bench_worth)
    corrections = kinds.add_parser("corrections", help="corrections in the words users use: does each supersede the "
                                   "fact it corrects, through import → ingest → recall (docs/corrections.md)")
    corrections.add_argument("--short", action="store_true",
                             help="say each correction in a session of its own line and the agent's 'Got it.'")
    add_json_flag(corrections)
    corrections.set_defaults(handler=run_bench_corrections)


def _transcripts(args) -> Path:
    folder = Path(args.transcripts).expanduser() if args.transcripts else SHARED_TRANSCRIPTS
    if not folder.is_dir():
        raise BadInputError(f"shared transcripts not found: {folder}")
    return folder


def _embed():
    from memory_pipeline.config import Settings
    from memory_pipeline.resources.embedding.onnx_embedder import embedder_for

    return embedder_for(Settings.from_env().embedding_model, Settings.from_env()).encode


def run_bench_observe(args) -> int:
    from benchmarks.observe_coding import bench_observe_coding
    from benchmarks.observe_run import BenchRunner

    if not args.quality:
        raise BadInputError("bench observe needs --quality")
    runner, embed = BenchRunner(), _embed()
    figures = {"coding": bench_observe_coding(runner, embed, _transcripts(args))}
    if not args.coding:
        figures = {"locomo": _locomo(args, runner, embed)} | figures
    if args.json:
        print_json(figures)
        return 0
    if "locomo" in figures:
        _print_locomo(figures["locomo"])
    _print_coding(figures["coding"], runner.provider)
    return 0


def _locomo(args, runner, embed) -> dict:
    from benchmarks.locomo import DEFAULT_DATA
    from benchmarks.observe_quality import bench_observe_quality

    data = Path(args.data).expanduser() if args.data else DEFAULT_DATA
    if not data.is_file():
        raise BadInputError(f"LoCoMo data not found: {data}")
    if args.sessions is not None and args.sessions < 1:
        raise BadInputError("--sessions must be at least 1")
    return bench_observe_quality(runner, embed, data, args.sessions)


def _print_locomo(locomo: dict) -> None:
    out = console()
    out.print(f"Observer ({locomo['provider']}) on LoCoMo: coverage (cosine >= 0.55, same turn), "
              "noise (questions, greetings, < 4 words), facts per turn", highlight=False)
    for name, row in (locomo["conversations"] | {"overall": locomo["overall"]}).items():
        out.print(f"  {name:<10} coverage {row['coverage']}  noise {row['noise']}  facts/turn {row['facts_per_turn']}"
                  f"  ({row['references']} references, {row['facts']} facts, {row['turns']} turns)", highlight=False)


def _print_coding(coding: dict, provider: str) -> None:
    out = console()
    out.print(f"Observer ({provider}) on the labelled coding sentences: precision (of facts keeping a labelled "
              "sentence), strict precision (of all facts: edits and commands count wrong), recall", highlight=False)
    for name, row in (coding["fixtures"] | {"overall": coding["overall"]}).items():
        if "skipped" in row:
            out.print(f"  {name[:40]:<40} skipped: {row['skipped']}", highlight=False)
            continue
        out.print(f"  {name[:40]:<40} precision {row['precision']}  strict {row['strict_precision']}  recall "
                  f"{row['recall']}  ({row['facts']} facts, {row['unlabelled_facts']} unlabelled, "
                  f"{row['durable']} durable of {row['sentences']} sentences)", highlight=False)


def run_bench_reflect(args) -> int:
    from benchmarks.observe_run import BenchRunner
    from benchmarks.reflect_quality import bench_reflect_quality

    if not args.quality:
        raise BadInputError("bench reflect needs --quality")
    figures = bench_reflect_quality(BenchRunner(), _embed(), _transcripts(args))
    if args.json:
        print_json(figures)
        return 0
    out = console()
    out.print(f"Reflector ({figures['provider']}) on {figures['sessions']} shared transcripts: {figures['proposals']} "
              f"proposals, {figures['labelled']} labelled, {figures['good']} good", highlight=False)
    out.print(f"  precision {figures['precision']}  recall {figures['recall']} (of {figures['facts']} labelled facts)  "
              f"change logs {figures['change_logs']}  useful per 10 sessions {figures['useful_per_10_sessions']}",
              highlight=False)
    print_listed(out, (("good", figures["good_lines"]), ("bad", figures["bad"]),
                       ("unlabelled (label them in benchmarks/labels)", figures["unlabelled"])))
    return 0


def run_bench_worth(args) -> int:
    from benchmarks.worth import DURABLE_DEV, TRANSCRIPTS, bench_worth, table

    transcripts = Path(args.transcripts).expanduser() if args.transcripts else TRANSCRIPTS
    labels = Path(args.labels).expanduser() if args.labels else DURABLE_DEV
    if not transcripts.is_dir():
        raise BadInputError(f"shared transcripts not found: {transcripts}")
    if not (labels / "labels.json").is_file():
        raise BadInputError(f"labels not found: {labels / 'labels.json'}")
    if not (labels / "score.py").is_file() and not (DURABLE_DEV / "score.py").is_file():
        raise BadInputError(f"no score.py in {labels} nor in {DURABLE_DEV}")
    figures = bench_worth(transcripts, labels, Path(args.keep).expanduser() if args.keep else None, args.verbose)
    if args.json:
        print_json(figures)
        return 0
    out = console()
    out.print(f"Default path (import → ingest → reflect --backfill, offline) on {len(figures['transcripts'])} "
              f"labelled transcripts; briefings the day after each project's last session", highlight=False)
    for line in table(figures):
        out.print(line, highlight=False, soft_wrap=True)
    if args.verbose:
        out.print(figures["scorer"], highlight=False, soft_wrap=True)
    if figures["kept"]:
        out.print(f"workspace and briefings kept in {figures['kept']}", highlight=False)
    return 0


def run_bench_corrections(args) -> int:
    from benchmarks.corrections import bench_corrections, table

    verdicts = bench_corrections(short=args.short)
    if args.json:
        print_json(verdicts)
        return 0
    out = console()
    for line in table(verdicts, short=args.short):
        out.print(line, highlight=False, soft_wrap=True)
    return 0


def print_listed(out, listed) -> None:
    """Each titled list of lines that is not empty, under its title."""
    for title, lines in listed:
        if lines:
            out.print(f"  {title}:", highlight=False)
            for line in lines:
                out.print(f"    - {line}", highlight=False, soft_wrap=True)


def run_bench_pack_quality(args) -> int:
    from benchmarks.observe_run import BenchRunner
    from benchmarks.pack_quality import bench_pack_quality

    figures = bench_pack_quality(BenchRunner(), _embed(), _transcripts(args))
    if args.json:
        print_json(figures)
        return 0
    out = console()
    out.print(f"Recall pack ({figures['provider']}) of {figures['transcripts']} transcripts as of {figures['day']}: "
              f"{figures['events']} ledger events, {figures['lines']} pack lines, {figures['labelled']} labelled, "
              f"{figures['good']} good", highlight=False)
    out.print(f"  precision {figures['precision']}  recall {figures['recall']} (of {figures['facts']} labelled facts)  "
              f"commands among procedures {len(figures['commands_in_procedures'])}  stale commitments unmarked "
              f"{len(figures['stale_commitments_unmarked'])}", highlight=False)
    for name, row in figures["sections"].items():
        out.print(f"  {name:<12} precision {row['precision']}  ({row['good']} good of {row['labelled']} labelled, "
                  f"{row['lines']} lines)", highlight=False)
    print_listed(out, (("bad", figures["bad_lines"]),
                       ("unlabelled (label them in labels/pack_lines.json)", figures["unlabelled"])))
    return 0
