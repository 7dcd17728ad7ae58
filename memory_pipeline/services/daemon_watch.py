"""The workspace's always-on pipeline, asleep while there is nothing to do:
`python -m memory_pipeline.services.daemon_watch --socket PATH` (the process `service start`, a service
manager or the first hook of a session starts: its pid is state/daemon.pid).

Dagster's daemon wakes its threads every few seconds whether or not there is work (the sensor loop
every 5 s, the run queue every second, the automation loop, heartbeats, a workspace reload each
minute): idle, it used 2.6 % of a core with its code server. This watcher costs a stat of a few
files every 2 s. It runs the Dagster pipeline, its two children (services/dagster_child.py: the code
server, then `dagster-daemon run`), while there is work:
- when it starts (the schedules missed while nothing ran are caught up once, the sensors tick);
- when an event waits in the inbox, when REVIEW.md changed, when a schedule's time comes;
and puts it to sleep (stops both) once no event waits, no run is queued or running and `idle_stop`
seconds passed since the last of them. SIGTERM (`service stop`, the service manager) stops both.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

from memory_pipeline.config import Settings, configure_process
from memory_pipeline.resources.daemons import dagster_records
from memory_pipeline.resources.daemons.dagster_daemon import answers, write_daemon_workspace
from memory_pipeline.resources.files.inbox import Inbox
from memory_pipeline.resources.processes import terminate
from memory_pipeline.resources.workspace import Workspace, ensure_socket_dir

WATCH_SECONDS = 2.0
START_WAIT = 90.0
CHILD = "memory_pipeline.services.dagster_child"


class DagsterPipeline:
    """The code server and the Dagster daemon, children of this process (in its process group)."""

    def __init__(self, workspace: Workspace, code_socket: Path) -> None:
        self.workspace, self.code_socket = workspace, code_socket
        self.server: subprocess.Popen | None = None
        self.daemon: subprocess.Popen | None = None

    def start(self, wait: float = START_WAIT) -> None:
        """The code server, once it answers on its socket the daemon; raises RuntimeError when the
        server fails to start."""
        ensure_socket_dir(self.code_socket)
        self.code_socket.unlink(missing_ok=True)
        workspace_file = write_daemon_workspace(self.workspace, self.code_socket)
        self.server = subprocess.Popen([sys.executable, "-m", CHILD, "code-server", "--socket", str(self.code_socket)],
                                       stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + wait
        while not answers(self.code_socket):
            if self.server.poll() is not None:
                raise RuntimeError(f"the code server exited at once (status {self.server.returncode})")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the code server did not answer on {self.code_socket} within {wait:.0f} s")
            time.sleep(0.1)
        self.daemon = subprocess.Popen([sys.executable, "-m", CHILD, "daemon", "--workspace-file", str(workspace_file)],
                                       stdin=subprocess.DEVNULL)

    def running(self) -> bool:
        return any(p is not None and p.poll() is None for p in (self.server, self.daemon))

    def failed(self) -> bool:
        """One of the two exited while the other was meant to run."""
        return any(p is not None and p.poll() is not None for p in (self.server, self.daemon))

    def stop(self, grace: float = 20.0) -> None:
        for process in (self.daemon, self.server):  # the daemon first: it would launch runs
            if process is not None and process.poll() is None:
                terminate(process.pid, (signal.SIGTERM, signal.SIGKILL), grace=grace)
                process.wait()
        self.server = self.daemon = None
        self.code_socket.unlink(missing_ok=True)


class Watch:
    """What wakes the pipeline, read from files only (no Dagster import)."""

    def __init__(self, workspace: Workspace, settings: Settings, home: Path) -> None:
        self.workspace, self.settings, self.home = workspace, settings, home
        self.review_stamp = self.review_now()
        self.next_due: float | None = None

    def review_now(self) -> float | None:
        try:
            return self.workspace.review_md.stat().st_mtime
        except OSError:
            return None

    def work(self, now: float) -> str | None:
        """Why the pipeline should run now, or None."""
        if Inbox(self.workspace).pending():
            return "an event in the inbox"
        if self.review_now() != self.review_stamp:
            return "REVIEW.md changed"
        due = self.next_schedule()
        if due is not None and due <= now:
            return "a schedule's time"
        return None

    def busy(self) -> bool:
        """A run queued or running, an event waiting; an instance that is not SQLite always counts as busy
        (its runs cannot be read without Dagster: the pipeline stays up)."""
        if not dagster_records.sqlite_instance(self.home):
            return True
        return bool(Inbox(self.workspace).pending()) or dagster_records.runs_in_progress(self.home) > 0

    def seen(self) -> None:
        """The running pipeline has seen the files as they are now (its sensors look at them)."""
        self.review_stamp = self.review_now()

    def asleep(self) -> None:
        """The pipeline was put to sleep: later changes are measured against what it saw; the next
        schedule's time is when it wakes at the latest."""
        self.seen()
        self.next_due = self.next_schedule_time()

    def next_schedule(self) -> float | None:
        return self.next_due

    def next_schedule_time(self) -> float | None:
        from memory_pipeline.flows.status import next_run  # noqa: PLC0415 — the flows and Dagster: only when a schedule is read, the idle watcher stays small

        now = time.time()
        times = [next_run(record["cron"], self.settings, now) for record in dagster_records.instigators(self.home)
                 if record["kind"] == "schedule" and record["cron"]]
        stamps = [datetime.fromisoformat(t).timestamp() for t in times if t]
        return min(stamps, default=None)


def watch(workspace: Workspace, settings: Settings, code_socket: Path, idle_stop: float,
          stopping: threading.Event) -> int:
    from memory_pipeline.flows.runs import dagster_home  # noqa: PLC0415 — Dagster's instance: kept out of the idle watcher's start

    pipeline, watched = DagsterPipeline(workspace, code_socket), Watch(workspace, settings, dagster_home(workspace, settings))
    reason: str | None = "the watcher started"  # catch up on the schedules missed while nothing ran
    last_work = time.monotonic()
    try:
        while not stopping.is_set():
            now = time.monotonic()
            if pipeline.running():
                if pipeline.failed() and not stopping.is_set():  # not the SIGTERM `service stop` sent them all
                    say("a Dagster process exited; stopping (the next hook or `service start` starts it again)")
                    return 1
                if watched.busy() or watched.review_now() != watched.review_stamp:
                    last_work = now
                    watched.seen()
                elif now - last_work > idle_stop:
                    say(f"nothing to do for {idle_stop:.0f} s: the Dagster daemon sleeps until there is")
                    pipeline.stop()
                    watched.asleep()
            else:
                reason = reason or watched.work(time.time())
                if reason:
                    say(f"waking the Dagster daemon: {reason}")
                    pipeline.start()
                    reason, last_work = None, time.monotonic()
                    watched.seen()
            stopping.wait(WATCH_SECONDS)
    finally:
        pipeline.stop()
    return 0


def say(line: str) -> None:
    print(f"{datetime.now().astimezone().isoformat(timespec='seconds')} - memory-pipeline daemon - {line}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memory_pipeline.services.daemon_watch", description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket", required=True, type=Path, help="the code server's unix socket")
    args = parser.parse_args(argv)
    configure_process()
    settings = Settings.from_env()
    workspace = Workspace(settings.workspace).create()
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    try:
        return watch(workspace, settings, args.socket, settings.daemon_idle_stop, stopping)
    except RuntimeError as exc:
        if stopping.is_set():  # stopped while the pipeline was starting: its children had the same signal
            return 0
        say(str(exc))
        return 1


if __name__ == "__main__":
    sys.exit(main())
