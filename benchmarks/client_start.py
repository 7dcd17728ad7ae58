"""`python -m benchmarks.client_start`: what the memory hooks and MCP server add to an agent's start.

Three figures, each the median of `--runs`:
- a hook call that finds no hook service running (the first of the day), as `hooks install` writes
  it: Stop (prints nothing) and SessionStart in a folder briefed before;
- the MCP server's `initialize` (spawn to answer) and `tools/list`, measured at the MCP SDK's own
  client over stdio, started with the command `hooks install` writes into the clients' configs;
- `claude -p "Say hi"` wall time through the real Claude Code (`.clients/`, see
  memory_pipeline_tests/support/agent_clients.py) against a loopback model server, in three projects:
  nothing installed, the hooks only (`hooks install claude-code --no-mcp`), hooks + MCP. Claude Code
  holds its first request until every MCP server has connected, so a slow server shows here.

The runs go round-robin over the three projects so a change in the machine's load hits each alike;
one warm-up run per project first (the hook service and the recall service are started then).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

RUNS = 10


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


async def mcp_handshake(entry: dict, cwd: Path) -> tuple[float, float]:
    """(seconds to `initialize`, seconds to `tools/list` after it), from spawning the server."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=entry["command"], args=entry["args"],
                                   env={**os.environ, **entry.get("env", {})}, cwd=str(cwd))
    started = time.perf_counter()
    async with Client(params, mode="legacy") as client:
        initialized = time.perf_counter()
        tools = (await client.list_tools()).tools
        listed = time.perf_counter()
    assert {t.name for t in tools} >= {"search", "get"}, [t.name for t in tools]
    return initialized - started, listed - initialized


def bench_mcp(cwd: Path, runs: int) -> dict:
    from memory_pipeline.cli.hooks.mcp import mcp_entry

    entry = mcp_entry()
    samples = [asyncio.run(mcp_handshake(entry, cwd)) for _ in range(runs)]
    return {"command": " ".join([entry["command"], *entry["args"]]),
            "initialize_ms": median_ms([s[0] for s in samples]),
            "tools_list_ms": median_ms([s[1] for s in samples])}


def hook_call_seconds(payload: dict, env: dict[str, str]) -> float:
    import subprocess

    from memory_pipeline.cli.hooks.install import hook_argv

    started = time.perf_counter()
    done = subprocess.run(hook_argv(), input=json.dumps(payload).encode(), env=env, capture_output=True, timeout=120)
    elapsed = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    return elapsed


def bench_first_hook(root: Path, workspace: Path, runs: int) -> dict:
    """A hook call that finds no hook service (the first of the day), the command `hooks install`
    writes: Stop (prints nothing), and SessionStart in a folder a session was briefed in before."""
    from memory_pipeline import hook_entry

    env = dict(os.environ)
    folder = root / "first-hook"
    (folder / ".git").mkdir(parents=True)
    start = {"session_id": "bench-first", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(folder)}
    stop = {"session_id": "bench-first", "hook_event_name": "Stop", "cwd": str(folder)}
    hook_call_seconds(start, env)  # a briefing given there before
    times: dict[str, list[float]] = {"Stop": [], "SessionStart": []}
    for _ in range(runs):
        for name, payload in (("Stop", stop), ("SessionStart", start)):
            hook_entry.service_pid(str(workspace))  # the work handed over before is done
            hook_entry.stop_service(str(workspace))
            times[name].append(hook_call_seconds(payload, env))
    hook_entry.service_pid(str(workspace))
    hook_entry.stop_service(str(workspace))
    return {f"first hook ({name})": median_ms(samples) for name, samples in times.items()}


def bench_claude(root: Path, workspace: Path, runs: int) -> dict:
    from memory_pipeline_tests.support.agent_clients import ClientHome, installed_clients
    from memory_pipeline_tests.support.loopback_models import LoopbackModels

    clients = installed_clients()
    if isinstance(clients, str):
        return {"skipped": f"real Claude Code unavailable: {clients}"}
    projects = {name: root / name for name in ("nothing", "hooks", "hooks+mcp")}
    with LoopbackModels(default_text="Hi.") as models:
        home = ClientHome(clients, root / "home", models.url, workspace)
        for name, project in projects.items():
            (project / ".git").mkdir(parents=True)
            if name != "nothing":
                extra = ["--no-mcp"] if name == "hooks" else []
                done = home.memory(["hooks", "install", "claude-code", "--project", str(project), *extra], cwd=project)
                assert done.returncode == 0, done.stderr
        times: dict[str, list[float]] = {name: [] for name in projects}
        for round_ in range(runs + 1):
            for name, project in projects.items():
                started = time.perf_counter()
                done = home.claude(["-p", "Say hi"], cwd=project)
                elapsed = time.perf_counter() - started
                assert done.returncode == 0, done.stderr
                if round_:  # the first round warms the services and the disk cache
                    times[name].append(elapsed)
        home.settle()
    figures = {f"claude -p ({name})": median_ms(samples) for name, samples in times.items()}
    figures["hooks+mcp − nothing"] = round(figures["claude -p (hooks+mcp)"] - figures["claude -p (nothing)"], 1)
    figures["hooks − nothing"] = round(figures["claude -p (hooks)"] - figures["claude -p (nothing)"], 1)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="client-start-") as tmp:
        root = Path(tmp)
        workspace = root / "workspace"
        os.environ["MEMORY_WORKSPACE"] = str(workspace)
        os.environ.setdefault("MEMORY_LLM_PROVIDER", "offline")
        from memory_pipeline import hook_entry
        from memory_pipeline.config import Settings
        from memory_pipeline.resources.daemons.services import stop_workspace_services
        from memory_pipeline.resources.workspace import Workspace

        made = Workspace(workspace).create()
        (root / "mcp-project" / ".git").mkdir(parents=True)
        figures = {"load": os.getloadavg()[0]}
        try:
            figures |= bench_first_hook(root, workspace, args.runs)
            figures |= bench_mcp(root / "mcp-project", args.runs)
            # the hook service the MCP door started has this process's settings (its HOME): Claude Code's
            # hooks, under the client's temporary HOME, would be refused by it and take the slow path
            hook_entry.stop_service(str(workspace))
            figures |= bench_claude(root, workspace, args.runs)
        finally:
            stop_workspace_services(made, Settings.from_env().runtime_dir)
        figures["load after"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for name, value in figures.items():
            print(f"{name:<28} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
