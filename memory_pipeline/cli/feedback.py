"""`memory-pipeline feedback`: echo/fizzle for agents without a Stop hook, and judging the queue.

  memory-pipeline feedback --session ID --response FILE|-   queue one answer of a session, judge it
  memory-pipeline feedback                                  judge every queued answer now
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

from memory_pipeline.cli.common import add_json_flag, console, open_workspace, print_json


def register(sub) -> None:
    parser = sub.add_parser("feedback", help="judge which given memories an agent's answers used (echo/fizzle)")
    parser.add_argument("--session", help="the session the answer belongs to")
    parser.add_argument("--response", help="a file holding the agent's answer, or - for stdin")
    parser.add_argument("--final", action="store_true", help="the session ended: what it never used is ignored")
    add_json_flag(parser)
    parser.set_defaults(handler=run_feedback)


def run_feedback(args) -> int:
    from memory_pipeline.errors import BadInputError
    from memory_pipeline.flows.feedback import process_feedback
    from memory_pipeline.resources.embedding.onnx_embedder import embedder_for
    from memory_pipeline.resources.files.feedback import FeedbackFiles
    from memory_pipeline.resources.redis.redis_store import RedisStore, connect_redis
    from memory_pipeline.resources.vectors.stores import workspace_store
    from memory_pipeline.stages.events import check_session_id
    from memory_pipeline.stages.redact import redact

    settings, workspace = args.settings, open_workspace(args.settings)
    if bool(args.session) != bool(args.response or args.final):
        raise BadInputError("--session needs --response FILE|- (or --final), and they need --session")
    if args.session:
        check_session_id(args.session)
        text = "" if not args.response else (sys.stdin.read() if args.response == "-" else
                                             Path(args.response).read_text(encoding="utf-8", errors="replace"))
        FeedbackFiles(workspace).enqueue_answer(args.session, redact(text), datetime.now().astimezone(),
                                                final=args.final)
    embedder = embedder_for(settings.embedding_model, settings=settings)
    store = workspace_store(workspace.state, settings.qdrant_url, dimension=embedder.dimension,
                            api_key=settings.qdrant_api_key, lock_timeout=settings.qdrant_lock_timeout)
    client = connect_redis(settings.redis_url, workspace.state, settings.redis_idle_timeout, settings.runtime_dir)
    report = process_feedback(workspace, RedisStore(client), embedder, store)
    if args.json:
        print_json({"answers": report.answers, "used": report.used, "ignored": report.ignored})
    else:
        console().print(f"judged {report.answers} answer(s): {len(report.used)} memories used (+0.1), "
                        f"{len(report.ignored)} ignored (−0.05)", highlight=False)
    return 0
