"""`memory-pipeline service stop`: stop every background process this workspace started, and wait for them."""

from __future__ import annotations

from memory_pipeline.cli.common import add_json_flag, console, open_workspace, print_json
from memory_pipeline.errors import ServiceError

HELP = ("stop the workspace's daemon, redis-server, recall service and ui, and wait for them; the daemon stays "
        "stopped (hooks do not start it) until `service start`")


def add_arguments(parser) -> None:
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for each before killing it")
    add_json_flag(parser)
    parser.set_defaults(handler=run_stop)


def describe(process) -> str:
    uptime = f"up {format_duration(process.uptime_s)}" if process.uptime_s is not None else "uptime unknown"
    memory = f"{process.rss_bytes / 2**20:.0f} MB" if process.rss_bytes else "memory unknown"
    return f"{process.name:<15} pid {process.pid:<8} {uptime}, {memory}"


def format_duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def run_stop(args) -> int:
    from memory_pipeline.resources.daemons.services import stop_workspace_services, workspace_processes

    workspace = open_workspace(args.settings)
    stopped = stop_workspace_services(workspace, args.settings.runtime_dir, args.timeout)
    left = workspace_processes(workspace, args.settings.runtime_dir)
    if args.json:
        print_json({"workspace": str(workspace.root), "stopped": [p.as_dict() for p in stopped],
                    "still_running": [p.as_dict() for p in left]})
    else:
        out = console()
        if not stopped:
            out.print(f"nothing running for {workspace.root}", highlight=False)
        for process in stopped:
            out.print(f"stopped {describe(process)}", highlight=False)
    if left:
        raise ServiceError("still running after stop: " + ", ".join(f"{p.name} pid {p.pid}" for p in left))
    return 0
