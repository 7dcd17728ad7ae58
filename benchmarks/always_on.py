"""The always-on pipeline through the real Claude Code client: session end → its fact recallable
and in the next SessionStart briefing (median, p95), with nothing typed; the idle daemon's RSS and
CPU; the first hook's latency while the daemon starts.

    python -m benchmarks.always_on --sessions 5

A fresh HOME in a temporary folder, the pinned Claude Code (memory_pipeline_tests/support/
agent_clients.py) against a loopback model server, the hooks installed for one project and
MEMORY_DAEMON_AUTOSTART on: the first session's SessionStart hook starts the workspace's daemon.
Each session (three user turns) says one new fact ("… service-N listens on port 84NN"); the clock runs from the
client's exit to the moment `memory-pipeline brief` (what SessionStart injects) and `recall`
from the project folder both show it. The idle daemon is measured once its watcher has put the
Dagster daemon to sleep (MEMORY_DAEMON_IDLE_STOP after the last run). Everything is stopped after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from memory_pipeline.resources.daemons.dagster_daemon import daemon_pid
from memory_pipeline.resources.processes import children_of, group_members, process_info
from memory_pipeline.resources.workspace import Workspace


def conversation(n: int) -> tuple[list[tuple[str, str]], str]:
    """Three user turns (a session the Observer observes: stages/windows.py) and the fact's needle."""
    port = f"84{n:02d}"
    return [(f"Remember: the staging server for service-{n} listens on port {port}.",
             f"Noted: service-{n} staging listens on port {port}."),
            (f"Also remember that service-{n} deploys go through the release-train job.",
             f"Noted: service-{n} deploys go through the release-train job."),
            (f"Thanks, that is all for service-{n}.", "You're welcome.")], port


def shows(home, project: Path, command: list[str], needle: str) -> bool:
    done = home.memory(command, cwd=project, timeout=300)
    return done.returncode == 0 and needle in done.stdout


def wait_until_known(home, project: Path, n: int, port: str, timeout: float) -> float | None:
    """Seconds until the briefing and recall both show the fact, or None after `timeout`."""
    began = time.monotonic()
    briefed = recalled = False
    while time.monotonic() - began < timeout:
        briefed = briefed or shows(home, project, ["brief"], port)
        recalled = briefed and (recalled or shows(home, project, ["recall", f"service-{n} staging server port"], port))
        if briefed and recalled:
            return time.monotonic() - began
        time.sleep(1.0)
    return None


def session_start_ms(debug_log: Path) -> float | None:
    from memory_pipeline_tests.support.agent_clients import hook_timings

    return next((ms for event, _, ms in hook_timings(debug_log) if event == "SessionStart"), None)


ASLEEP_WAIT = 900.0  # MEMORY_DAEMON_IDLE_STOP (300 s by default) after the last run, and then some


def group_cpu_seconds(pid: int) -> float:
    """CPU the daemon's group has used so far: the watcher with its reaped children (the Dagster
    processes it stopped), and the members alive now."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for member in group_members(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used = int(fields[11]) + int(fields[12])
        if member == pid:
            used += int(fields[13]) + int(fields[14])
        total += used / ticks
    return total


def idle_daemon(workspace: Workspace, seconds: float) -> dict:
    """RSS of the daemon's process group and its CPU use over `seconds` of idling, once the watcher
    has put the Dagster daemon to sleep (no run, no event: its code server and daemon stopped)."""
    pid = daemon_pid(workspace)
    if pid is None:
        return {"error": "no daemon running"}
    began = time.monotonic()
    while children_of(pid) and time.monotonic() - began < ASLEEP_WAIT:
        time.sleep(2.0)
    if children_of(pid):
        return {"error": f"the Dagster daemon was still up {ASLEEP_WAIT:.0f} s after the last session"}
    asleep_after = time.monotonic() - began
    before, began = group_cpu_seconds(pid), time.monotonic()
    peak = 0
    while time.monotonic() - began < seconds:
        peak = max(peak, sum(process_info(m).rss_bytes or 0 for m in group_members(pid)))
        time.sleep(1.0)
    elapsed = time.monotonic() - began
    used = group_cpu_seconds(pid) - before
    return {"asleep_after_s": round(asleep_after), "peak_rss_mb": round(peak / 2**20),
            "cpu_percent_of_a_core": round(100 * used / elapsed, 2), "window_s": round(elapsed),
            "load_average": os.getloadavg()}


def run(sessions: int, idle_seconds: float, timeout: float) -> dict:
    from memory_pipeline_tests.support.agent_clients import ClientHome, installed_clients
    from memory_pipeline_tests.support.loopback_models import LoopbackModels

    clients = installed_clients()
    if isinstance(clients, str):
        raise SystemExit(f"Claude Code is not available: {clients}")
    root = Path(tempfile.mkdtemp(prefix="bench-always-on-"))
    report: dict = {"sessions": sessions, "client": f"claude-code {clients.versions.get('claude-code')}",
                    "load_average_at_start": os.getloadavg()}
    with LoopbackModels() as models:
        for n in range(sessions):
            for said, reply in conversation(n)[0]:
                models.answer_when(said, reply)
        home = ClientHome(clients, root / "home", models.url, root / "home" / ".memory-pipeline" / "workspace")
        workspace = Workspace(home.workspace)
        project = root / "orders-api"
        project.mkdir()
        try:
            installed = home.install_hooks(project)
            if installed.returncode != 0:
                raise SystemExit(installed.stderr)
            latencies, hooks_ms = [], []
            for n in range(sessions):
                turns, port = conversation(n)
                log = root / f"debug-{n}.log"
                status = home.claude_conversation(["--session-id", str(uuid.uuid4()), "--debug-file", str(log)],
                                                  project, [said for said, _ in turns])
                if status != 0:
                    raise SystemExit(f"claude exited with {status}; see {log}")
                hooks_ms.append(session_start_ms(log))
                latencies.append(wait_until_known(home, project, n, port, timeout))
            known = sorted(x for x in latencies if x is not None)
            report["session_end_to_known_s"] = [None if x is None else round(x, 1) for x in latencies]
            if known:
                report["median_s"] = round(statistics.median(known), 1)
                report["p95_s"] = round(known[min(len(known) - 1, round(0.95 * (len(known) - 1)))], 1)
            report["not_known_within_s"] = sum(1 for x in latencies if x is None)
            report["first_session_start_hook_ms"] = hooks_ms[0]  # the daemon was starting
            report["later_session_start_hook_ms"] = hooks_ms[1:]
            report["idle_daemon"] = idle_daemon(workspace, idle_seconds)
        finally:
            home.memory(["service", "stop"], cwd=project, timeout=180)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.always_on", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--idle-seconds", type=float, default=60.0, help="the window the idle daemon is measured over")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for one session's fact")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = run(args.sessions, args.idle_seconds, args.timeout)
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:<32} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
