"""`memory-pipeline service ui`: the Dagster UI for this workspace (its webserver, with the Host and
Origin of every request checked: services/dagster_ui.py), DAGSTER_HOME set the way the CLI sets it.
The sensors and schedules are the workspace's daemon's: started here when it is not running."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from memory_pipeline.cli.common import open_workspace
from memory_pipeline.resources.processes import folder_identity, read_pid, terminate, write_pid
from memory_pipeline.resources.workspace import atomic_write_text

HELP = "start the Dagster UI for this workspace (loopback; see what it exposes in docs/dagster.md)"
EXPOSES = ("The UI shows memory text (observations, facts, run logs) and launches runs. It answers only requests "
           "naming {url} (a web page elsewhere, DNS rebinding included, is refused), but any program of any "
           "user on this machine can reach the port: do not run it on a shared machine. Ctrl-C stops it.")


def add_arguments(parser) -> None:
    parser.add_argument("--port", type=int, default=3000)
    parser.add_argument("--host", default="127.0.0.1")
    parser.set_defaults(handler=run_ui)


def run_ui(args) -> int:
    from memory_pipeline.cli.service.daemon import prepared_home
    from memory_pipeline.resources.daemons.dagster_daemon import daemon_environment, start_daemon

    workspace = open_workspace(args.settings)
    home = prepared_home(workspace, args.settings)
    pid, started = start_daemon(workspace, home, args.settings.runtime_dir)
    url = f"http://{args.host}:{args.port}"
    print(f"workspace {workspace.root}\nDAGSTER_HOME {home}\n"
          f"daemon {'started' if started else 'running'}, pid {pid} (sensors and schedules; `service stop` stops it)\n"
          f"{url}\n{EXPOSES.format(url=url)}", flush=True)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"WARNING: --host {args.host} is not loopback: every machine that reaches it can read your memory "
              "and launch runs", file=sys.stderr, flush=True)
    env = daemon_environment(workspace, home)
    command = [sys.executable, "-m", "memory_pipeline.services.dagster_ui", args.host, str(args.port)]
    url_file = workspace.state_path("ui_url")
    atomic_write_text(url_file, url + "\n")  # where `import` asks it to reload
    try:
        return supervise(workspace, command, env)
    finally:
        url_file.unlink(missing_ok=True)


def supervise(workspace, command: list[str], env: dict[str, str]) -> int:
    """Run the webserver in its own process group, recorded in state/ui.pid so `memory-pipeline stop`
    can stop it. Ctrl-C or SIGTERM here stops the whole group (its code server with it); so does the
    workspace folder disappearing."""
    process = subprocess.Popen(command, env=env, start_new_session=True)
    pid_file = workspace.state_path("ui_pid")
    write_pid(pid_file, process.pid)
    identity = folder_identity(workspace.root)

    def stop_group(*_) -> None:
        terminate(process.pid, (signal.SIGTERM, signal.SIGKILL), grace=10.0, group=True)

    previous = {sig: signal.signal(sig, stop_group) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        while process.poll() is None:
            if folder_identity(workspace.root) != identity:
                print("memory-pipeline ui: the workspace folder is gone; stopping", file=sys.stderr, flush=True)
                stop_group()
            time.sleep(1.0)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if read_pid(pid_file) == process.pid:
            pid_file.unlink(missing_ok=True)
    return 0 if process.returncode in (0, -signal.SIGTERM, -signal.SIGINT) else 1
