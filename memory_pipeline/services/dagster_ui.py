"""The Dagster UI's webserver for `memory-pipeline service ui`, with its requests checked: the
dagster-webserver app (GraphQL: memory text, run launches) behind a guard that refuses any request
whose Host header is not this server's loopback name and port, or whose Origin is another site's.
A web page that rebinds its own name to 127.0.0.1 (DNS rebinding) sends its own name as Host and
is refused; so is a cross-site request from a page. It does not stop another user of this machine
(a local process can send any header): docs/dagster.md says so.

Run as `python -m memory_pipeline.services.dagster_ui HOST PORT` with DAGSTER_HOME and
MEMORY_WORKSPACE set; sensors and schedules are the daemon's (resources/daemons/dagster_daemon.py).
"""

from __future__ import annotations

import sys

from memory_pipeline.pipeline import DEFINITIONS_MODULE

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
REFUSED = b"refused: this Dagster UI answers only to http://127.0.0.1 or http://localhost on its own port\n"


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    names = set(LOOPBACK_NAMES) if host in ("127.0.0.1", "localhost", "::1") else {host}
    return frozenset(f"{name}:{port}" for name in names) | (frozenset(names) if port == 80 else frozenset())


class HostGuard:
    """ASGI middleware: HTTP and websocket requests must name an allowed Host, and an Origin (when
    sent) on the same host; anything else gets 403 (a websocket is closed before it opens)."""

    def __init__(self, app, hosts: frozenset[str]):
        self.app = app
        self.hosts = hosts
        self.origins = frozenset(f"http://{host}" for host in hosts)

    def admits(self, scope) -> bool:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        origin = headers.get("origin")
        return headers.get("host", "").lower() in self.hosts and (origin is None or origin.lower() in self.origins)

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket") or self.admits(scope):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(REFUSED)).encode())]})
        await send({"type": "http.response.body", "body": REFUSED})


def serve(host: str, port: int) -> None:
    import uvicorn
    from dagster import DagsterInstance
    from dagster._core.workspace.context import WorkspaceProcessContext
    from dagster._core.workspace.load_target import ModuleTarget
    from dagster_webserver.app import create_app_from_workspace_process_context
    from dagster_webserver.version import __version__


    target = ModuleTarget(module_name=DEFINITIONS_MODULE, attribute=None, working_directory=None, location_name=None)
    with DagsterInstance.get() as instance, WorkspaceProcessContext(
            instance, version=__version__, read_only=False, workspace_load_target=target) as context:
        app = create_app_from_workspace_process_context(context, "")
        uvicorn.run(HostGuard(app, allowed_hosts(host, port)), host=host, port=port, log_level="warning")


if __name__ == "__main__":
    serve(sys.argv[1], int(sys.argv[2]))
