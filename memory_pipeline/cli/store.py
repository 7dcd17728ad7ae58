"""`memory-pipeline store`: the vector store itself.

  memory-pipeline store move --to URL|embedded   copy every point to a Qdrant server, or back into
                                                 the embedded shard (then set or unset QDRANT_URL)
"""

from __future__ import annotations

from memory_pipeline.cli.common import add_json_flag, console, open_workspace, print_json


def register(sub) -> None:
    parser = sub.add_parser("store", help="the vector store: move it to a Qdrant server and back")
    actions = parser.add_subparsers(dest="store_action", required=True)
    move = actions.add_parser("move", help="copy every point to a Qdrant server (URL) or the embedded shard")
    move.add_argument("--to", required=True, help="a Qdrant server URL (http://host:6333), or 'embedded'")
    add_json_flag(move)
    move.set_defaults(handler=run_move)


def run_move(args) -> int:
    from memory_pipeline.flows.store_move import EMBEDDED, move_store
    from memory_pipeline.resources.embedding.onnx_embedder import embedder_for

    settings, workspace = args.settings, open_workspace(args.settings)
    dimension = embedder_for(settings.embedding_model, settings=settings).dimension
    moved = move_store(workspace, settings, args.to, dimension)
    then = "unset QDRANT_URL" if args.to == EMBEDDED else f"set QDRANT_URL={args.to}"
    if args.json:
        print_json({"source": moved.source, "target": moved.target, "points": moved.points,
                    "written": moved.written, "then": then})
    else:
        console().print(f"moved {moved.points} points ({moved.written} written) from {moved.source} to "
                        f"{moved.target}; verified by id and content hash. Now {then}; the source is kept.",
                        highlight=False)
    return 0
