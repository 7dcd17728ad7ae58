"""The long-lived recall service: `memory-pipeline service start` starts it with the daemon;
`recall-service start|stop|status` (the old name) starts or stops it alone, or asks it how it is."""

from __future__ import annotations

from memory_pipeline.cli.common import add_json_flag, console, open_workspace, print_json


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=["start", "stop", "status"])
    add_json_flag(parser)
    parser.set_defaults(handler=run_service)


def run_service(args) -> int:
    from memory_pipeline.flows.recall.client import start_service
    from memory_pipeline.resources.daemons import recall_service

    workspace = open_workspace(args.settings)
    runtime_dir = args.settings.runtime_dir
    if args.action == "start":
        status = start_service(workspace, args.settings)
    elif args.action == "stop":
        pid = recall_service.stop_service(workspace, runtime_dir)
        status = {"stopped": pid is not None, "pid": pid,
                  "note": "only the recall service; `memory-pipeline service stop` stops every service of the workspace"}
    else:
        status = recall_service.ping(workspace, runtime_dir) or {"running": False}
    if args.json:
        print_json(status)
    else:
        out = console()
        for key, value in status.items():
            out.print(f"{key:<16} {value}", highlight=False)
    return 0
