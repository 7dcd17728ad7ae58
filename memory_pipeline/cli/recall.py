"""`memory-pipeline recall`: hybrid search over memory and raw turns (the recall service: `service start`)."""

from __future__ import annotations

import json
import sys

from memory_pipeline.cli.common import add_json_flag, add_project_flags, console, looked_at, open_workspace, print_json
from memory_pipeline.errors import BadInputError, MemoryPipelineError

MAX_QUERIES_FILE_BYTES = 50 * 1024 * 1024


def register(sub) -> None:
    parser = sub.add_parser("recall", help="search observations and transcript messages")
    parser.add_argument("query", nargs="*", help="what to look for (its words quoted or not)")
    parser.add_argument("--queries", metavar="FILE.jsonl", help='many queries, one {"id":…,"query":…} per line')
    parser.add_argument("--limit", type=int, default=10, help="hits to return (the inject cap, default 10)")
    parser.add_argument("--tier", choices=["observations", "messages", "all"], default="all")
    parser.add_argument("--since", help="first day, YYYY-MM-DD")
    parser.add_argument("--until", help="last day, YYYY-MM-DD")
    parser.add_argument("--priority", choices=["high", "medium", "low"])
    parser.add_argument("--session", help="only this session id")
    add_project_flags(parser)
    parser.add_argument("--rewrite", action="store_true", help="rewrite the query with the LLM provider first")
    parser.add_argument("--no-service", action="store_true", help="search in this process")
    add_json_flag(parser)
    parser.set_defaults(handler=run_recall)


def _options(args, project: str | None) -> dict:
    return dict(settings=args.settings, limit=args.limit, tier=args.tier, since=args.since, until=args.until, priority=args.priority,
                session_id=args.session, project=project, rewrite=args.rewrite, use_service=not args.no_service)


def _hits_json(hits) -> list[dict]:
    return [h.model_dump() for h in hits]


def scoped_recall(workspace, query: str, args):
    """The hits of `query` in the scope the command was asked for, and what was looked at; when a
    project gives no hit, how many every project gives (not shown: `--all-projects` shows them)."""
    from memory_pipeline.flows.recall.client import recall
    from memory_pipeline.stages.projects import with_other_hits

    looked = looked_at(args, workspace)
    hits = recall(workspace, query, **_options(args, looked.project))
    if not hits and looked.project is not None:
        others = recall(workspace, query, **(_options(args, None) | {"record": False}))
        looked = with_other_hits(looked, len(others), args.limit)
    return hits, looked


def run_recall(args) -> int:
    if args.queries:
        return run_queries(args)
    workspace = open_workspace(args.settings)
    query = " ".join(args.query) or None  # `recall redis pool timeout` as `recall "redis pool timeout"`
    try:
        if query is None:
            raise BadInputError("give a QUERY or --queries FILE.jsonl")
        hits, looked = scoped_recall(workspace, query, args)
    except BadInputError as exc:
        print(f"memory-pipeline: {exc}", file=sys.stderr)
        if args.json:
            print_json({"query": query, "hits": [], "error": str(exc)})
        return 2
    from memory_pipeline.stages.recall.confidence import SHOWN_WHEN_NOTHING, confidence

    found = confidence(hits)
    if args.json:
        print_json({"query": query, "scope": looked.as_dict(), "confidence": found.as_dict(), "hits": _hits_json(hits)})
        return 0
    if hits and not found.answered:
        nearest = hits[:SHOWN_WHEN_NOTHING]
        print_table(nearest, f"{looked.why}\n{found.line(len(nearest))}:")
        return 0
    if hits and found.level == "weak":
        print_table(hits, f"{looked.why}\n{found.weak_line()}")
        return 0
    print_table(hits, looked.why, indexed=bool(workspace_points(workspace)))
    return 0


def workspace_points(workspace) -> int:
    """Points the index manifests record (what `status` counts), without opening the store."""
    from memory_pipeline.flows.status import local_store_status

    return local_store_status(workspace)["points"]


def print_table(hits, scope: str, indexed: bool = True) -> None:
    from rich.table import Table
    from rich.text import Text

    from memory_pipeline.stages.provenance import said_by
    from memory_pipeline.stages.recall.sources import seen_in

    out = console()
    out.print(f"scope: {scope}", markup=False, highlight=False)
    if not hits:
        out.print("no hits" if indexed else "no hits: nothing is indexed yet (run `memory-pipeline import` or "
                                            "`memory-pipeline ingest` first)", highlight=False)
        return
    # two narrow columns and one for the hit: its facts on a first line, its text below, so the text
    # keeps most of an 80-column terminal
    table = Table(expand=True, show_lines=True)
    table.add_column("#", no_wrap=True)
    table.add_column("score", no_wrap=True)
    table.add_column("hit (tier · date · project · who said it · ranks · session · sources)", ratio=1)
    for n, hit in enumerate(hits, start=1):
        why = hit.why
        ranks = f"d{why.get('dense_rank') or '-'} s{why.get('sparse_rank') or '-'}"
        sources = ",".join(hit.source_message_ids[:3]) + ("…" if len(hit.source_message_ids) > 3 else "")
        where = "(user)" if hit.scope == "user" else (hit.project or "-")
        head = " · ".join([hit.tier[:3], hit.date, where, f"said by {said_by(hit.provenance)}", ranks,
                           hit.session_id[:24], sources])
        text = hit.text if len(hit.text) <= 400 else hit.text[:397] + "…"
        if hit.replaced_by:
            text += f"\n↳ replaced by {hit.replaced_by}"
        table.add_row(str(n), f"{hit.score:.3g}", Text(head, style="dim") + Text("\n" + text))
    out.print(table)
    for n, hit in enumerate(hits, start=1):  # a merged memory's sessions, whole at any terminal width
        if seen := seen_in(hit.sources, hit.why.get("mentions")):
            out.print(f"#{n} {seen}", markup=False, highlight=False, soft_wrap=True)


def _read_queries(path: str) -> list[tuple[object, str | None, str | None]]:
    """(id, query, error) per non-empty line."""
    from pathlib import Path

    file = Path(path).expanduser()
    if not file.is_file():
        raise BadInputError(f"queries file not found: {file}")
    if file.stat().st_size > MAX_QUERIES_FILE_BYTES:
        raise BadInputError(f"queries file is over {MAX_QUERIES_FILE_BYTES} bytes")
    rows: list[tuple[object, str | None, str | None]] = []
    for number, line in enumerate(file.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            if not isinstance(item, dict) or not isinstance(item.get("query"), str):
                raise ValueError('each line must be an object with a "query" string')
            rows.append((item.get("id", number), item["query"], None))
        except ValueError as exc:
            rows.append((number, None, f"line {number}: {exc}"))
    return rows


def run_queries(args) -> int:
    """One JSON line out per query line in; exit 2 when any line was bad input."""
    from memory_pipeline.flows.recall.client import recall
    from memory_pipeline.stages.recall.confidence import confidence

    try:
        rows = _read_queries(args.queries)
    except BadInputError as exc:
        print(f"memory-pipeline: {exc}", file=sys.stderr)
        return 2
    workspace = open_workspace(args.settings)
    looked = looked_at(args, workspace)
    bad = False
    for qid, query, error in rows:
        if query is not None:  # a line read well: its query, no error
            try:
                hits = recall(workspace, query, **_options(args, looked.project))
                print_json({"id": qid, "query": query, "scope": looked.as_dict(),
                            "confidence": confidence(hits).as_dict(), "hits": _hits_json(hits)})
                continue
            except BadInputError as exc:
                error = str(exc)
        bad = True
        print_json({"id": qid, "query": query, "hits": [], "error": error})
    return 2 if bad else 0


__all__ = ["register", "MemoryPipelineError"]
