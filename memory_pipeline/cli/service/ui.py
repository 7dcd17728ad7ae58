"""`memory-pipeline service ui`: `dagster dev` on this workspace, with DAGSTER_HOME set the way the CLI sets it."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from memory_pipeline.cli.common import open_workspace
from memory_pipeline.config import child_environment
from memory_pipeline.errors import MemoryPipelineError
from memory_pipeline.pipeline import DEFINITIONS_MODULE
from memory_pipeline.resources.processes import folder_identity, read_pid, terminate, write_pid
from memory_pipeline.resources.workspace import atomic_write_text


HELP = "start the Dagster UI (dagster dev) for this workspace"


def add_arguments(parser) -> None:
    parser.add_argument("--port", type=int, default=3000)
    parser.add_argument("--host", default="127.0.0.1")
    parser.set_defaults(handler=run_ui)


def run_ui(args) -> int:
    from memory_pipeline.flows.runs import dagster_home

    workspace = open_workspace(args.settings)
    home = dagster_home(workspace, args.settings)
    dagster = shutil.which("dagster") or str(Path(sys.executable).parent / "dagster")
    if not Path(dagster).exists():
        raise MemoryPipelineError("the dagster command is not installed in this environment")
    print(f"workspace {workspace.root}\nDAGSTER_HOME {home}\nhttp://{args.host}:{args.port}", flush=True)
    env = child_environment(MEMORY_WORKSPACE=str(workspace.root), DAGSTER_HOME=str(home))
    command = [dagster, "dev", "-m", DEFINITIONS_MODULE, "-h", args.host, "-p", str(args.port)]
    url = workspace.state_path("ui_url")
    atomic_write_text(url, f"http://{args.host}:{args.port}\n")  # where `import` asks it to reload
    try:
        return supervise(workspace, command, env)
    finally:
        url.unlink(missing_ok=True)


def supervise(workspace, command: list[str], env: dict[str, str]) -> int:
    """Run `dagster dev` in its own process group, recorded in state/ui.pid so `memory-pipeline stop`
    can stop it. Ctrl-C or SIGTERM here stops the whole group (dagster dev started by a script ignores
    them on its own); so does the workspace folder disappearing."""
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
