"""`dagster dev` (webserver and daemon) on a free loopback port, for the UI test, the deployment
test and `bench latency`. It runs in its own process group, and the whole group is stopped after:
run workers the daemon launched are children of it and must not outlive it."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from memory_pipeline.pipeline import DEFINITIONS_MODULE
from memory_pipeline.resources.processes import process_alive, read_pid, stop_group


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def dagster_dev(log_path: Path, env: Mapping[str, str] | None = None, timeout: float = 240.0) -> Iterator[str]:
    """Yields the base URL once the webserver answers; `env` defaults to this process's environment."""
    port = free_port()
    dagster = Path(sys.executable).parent / "dagster"
    with open(log_path, "w", encoding="utf-8") as log:
        process = subprocess.Popen(
            [str(dagster), "dev", "-m", DEFINITIONS_MODULE, "-h", "127.0.0.1", "-p", str(port)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            env=None if env is None else dict(env),
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                urllib.request.urlopen(f"{base}/server_info", timeout=2)
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"dagster dev did not start; see {log_path}") from None
                time.sleep(0.5)
        yield base
    finally:
        stop_group(process.pid, grace=20.0)
        process.wait()


def reload_running_ui(workspace) -> str | None:
    """Ask the workspace's running `memory-pipeline ui` (state/ui.pid, state/ui-url.txt) to reload its
    definitions, so new partitions (an import that moved the first day back) show without a restart.
    The UI's address when it reloaded, None when none runs or it did not answer."""
    pid = read_pid(workspace.state_path("ui_pid"))
    try:
        base = workspace.state_path("ui_url").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if pid is None or not process_alive(pid) or not base:
        return None
    body = json.dumps({"query": "mutation { reloadWorkspace { __typename } }"}).encode()
    request = urllib.request.Request(f"{base}/graphql", body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            answer = json.loads(response.read())
    except (OSError, ValueError):
        return None
    return base if answer.get("data", {}).get("reloadWorkspace") else None
