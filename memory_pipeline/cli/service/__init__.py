"""`memory-pipeline service start|stop|status|ui`: the workspace's background processes (the recall
service, redis-server, the Dagster UI). `status`, `stop`, `ui` and `recall-service` are the old names."""

from __future__ import annotations

from memory_pipeline.cli.common import add_alias
from memory_pipeline.cli.service import recall_service, status, stop, ui


def register(sub) -> None:
    parser = sub.add_parser("service", help="start, stop or look at the workspace's services (recall, redis, ui)")
    group = parser.add_subparsers(dest="service_action", required=True, metavar="ACTION")
    recall_service.add_start_arguments(group.add_parser("start", help=recall_service.HELP))
    stop.add_arguments(group.add_parser("stop", help=stop.HELP))
    status.add_arguments(group.add_parser("status", help=status.HELP))
    ui.add_arguments(group.add_parser("ui", help=ui.HELP))
    add_alias(sub, "status", "service status", status.add_arguments)
    add_alias(sub, "stop", "service stop", stop.add_arguments)
    add_alias(sub, "ui", "service ui", ui.add_arguments)
    add_alias(sub, "recall-service", "service start|stop|status", recall_service.add_arguments)
