"""`memory-pipeline service start|stop|status|ui|daemon|enable|disable`: the workspace's background
processes (the Dagster daemon that runs the sensors and schedules, the recall service, redis-server,
the Dagster UI). `status`, `stop`, `ui` and `recall-service` are the old names."""

from __future__ import annotations

from memory_pipeline.cli.common import add_alias
from memory_pipeline.cli.service import daemon, recall_service, status, stop, ui


def register(sub) -> None:
    parser = sub.add_parser("service", help="start, stop or look at the workspace's services (daemon, recall, redis, ui)")
    group = parser.add_subparsers(dest="service_action", required=True, metavar="ACTION")
    daemon.add_start_arguments(group.add_parser("start", help=daemon.START_HELP))
    stop.add_arguments(group.add_parser("stop", help=stop.HELP))
    status.add_arguments(group.add_parser("status", help=status.HELP))
    ui.add_arguments(group.add_parser("ui", help=ui.HELP))
    daemon.add_daemon_arguments(group.add_parser("daemon", help=daemon.DAEMON_HELP))
    daemon.add_enable_arguments(group.add_parser("enable", help=daemon.ENABLE_HELP))
    daemon.add_disable_arguments(group.add_parser("disable", help=daemon.DISABLE_HELP))
    add_alias(sub, "status", "service status", status.add_arguments)
    add_alias(sub, "stop", "service stop", stop.add_arguments)
    add_alias(sub, "ui", "service ui", ui.add_arguments)
    add_alias(sub, "recall-service", "service start|stop|status", recall_service.add_arguments)
