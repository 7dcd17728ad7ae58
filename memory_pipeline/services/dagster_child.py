"""The two Dagster processes of the workspace's pipeline, each a child of the watcher
(services/daemon_watch.py) that exits when its parent is gone (a `kill -9` of the watcher leaves
nothing behind; the runs already launched finish on their own):

    python -m memory_pipeline.services.dagster_child code-server --socket PATH
    python -m memory_pipeline.services.dagster_child daemon --workspace-file PATH

`code-server` is Dagster's gRPC code server (`dagster api grpc`) serving the definitions on a unix
socket. Left to itself, `dagster-daemon run -m …` starts a fresh code server every minute (it
reloads its workspace every 60 s, and a module target is reloaded by a new process importing the
definitions again): seconds of CPU a minute, two servers side by side while the old one drains.
`daemon` is `dagster-daemon run` on a workspace file that names this server (`grpc_server`), so
its reload is a call to a server that is already up.
"""

from __future__ import annotations

import argparse
import os
import runpy
import signal
import sys
import threading
import time

from memory_pipeline.config import configure_process
from memory_pipeline.pipeline import DEFINITIONS_MODULE

PARENT_CHECK_SECONDS = 2.0


def exit_with_parent(parent: int, interval: float = PARENT_CHECK_SECONDS) -> None:
    """Stop this process once `parent` is no longer its parent (it died and this one was reparented)."""
    while os.getppid() == parent:
        time.sleep(interval)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(10.0)
    os._exit(0)


def code_server_arguments(socket: str) -> list[str]:
    return ["dagster", "api", "grpc", "-m", DEFINITIONS_MODULE, "--socket", socket,
            "--location-name", DEFINITIONS_MODULE, "--log-level", "warning"]


def daemon_arguments(workspace_file: str) -> list[str]:
    return ["dagster-daemon", "run", "-w", workspace_file]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m memory_pipeline.services.dagster_child",
                                     description=__doc__.split("\n\n")[0])
    kinds = parser.add_subparsers(dest="kind", required=True)
    kinds.add_parser("code-server").add_argument("--socket", required=True, help="the unix socket to serve on")
    kinds.add_parser("daemon").add_argument("--workspace-file", required=True, help="the daemon's workspace.yaml")
    args = parser.parse_args(argv)
    configure_process()
    threading.Thread(target=exit_with_parent, args=(os.getppid(),), name="exit-with-parent", daemon=True).start()
    if args.kind == "code-server":
        sys.argv = code_server_arguments(args.socket)
        runpy.run_module("dagster", run_name="__main__")  # `python -m dagster api grpc …`, in this process
    else:
        sys.argv = daemon_arguments(args.workspace_file)
        runpy.run_module("dagster._daemon", run_name="__main__")  # `dagster-daemon run …`, in this process


if __name__ == "__main__":
    main()
