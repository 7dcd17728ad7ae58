"""Start `dagster dev` for a test on a free port, and stop its whole process group after."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def graphql(base: str, query: str) -> dict:
    request = urllib.request.Request(f"{base}/graphql", json.dumps({"query": query}).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


@contextmanager
def dagster_dev(log_path: Path, timeout: float = 180.0):
    """Yields the base URL once the webserver answers; the 'community' dialog is dismissed."""
    port = free_port()
    dagster = Path(sys.executable).parent / "dagster"
    with open(log_path, "w", encoding="utf-8") as log:
        process = subprocess.Popen(
            [str(dagster), "dev", "-m", "memory_pipeline.definitions", "-h", "127.0.0.1", "-p", str(port)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env={**os.environ},
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
                time.sleep(1)
        graphql(base, "mutation { setNuxSeen }")
        yield base
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                break
            try:
                process.wait(timeout=15)
                break
            except subprocess.TimeoutExpired:
                continue
