"""`memory-pipeline ui`: `dagster dev` on this workspace, with DAGSTER_HOME set the way the CLI sets it."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from memory_pipeline.cli.common import workspace_from_env
from memory_pipeline.config import child_environment
from memory_pipeline.errors import MemoryPipelineError
from memory_pipeline.pipeline import DEFINITIONS_MODULE


def register(sub) -> None:
    parser = sub.add_parser("ui", help="start the Dagster UI (dagster dev) for this workspace")
    parser.add_argument("--port", type=int, default=3000)
    parser.add_argument("--host", default="127.0.0.1")
    parser.set_defaults(handler=run_ui)


def run_ui(args) -> int:
    from memory_pipeline.flows.runs import dagster_home

    workspace = workspace_from_env()
    home = dagster_home(workspace)
    dagster = shutil.which("dagster") or str(Path(sys.executable).parent / "dagster")
    if not Path(dagster).exists():
        raise MemoryPipelineError("the dagster command is not installed in this environment")
    print(f"workspace {workspace.root}\nDAGSTER_HOME {home}\nhttp://{args.host}:{args.port}", flush=True)
    env = child_environment(MEMORY_WORKSPACE=str(workspace.root), DAGSTER_HOME=str(home))
    os.execve(dagster, [dagster, "dev", "-m", DEFINITIONS_MODULE, "-h", args.host, "-p", str(args.port)], env)
    return 0
