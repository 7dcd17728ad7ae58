"""The always-on pipeline as a user meets it: the first hook of a session starts the workspace's
Dagster daemon without waiting for it, `service status` says what runs the sensors and schedules,
`service stop` stops all of it (and hooks leave it stopped), a service manager's unit runs it in
the foreground, and `service ui` refuses requests that name another host."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from memory_pipeline.resources.daemons.dagster_daemon import daemon_pid
from memory_pipeline.resources.daemons.dagster_dev import free_port
from memory_pipeline.resources.processes import terminate
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.cli.hook_helpers import hook_env, payload, run_cli, wait_for
from memory_pipeline_tests.support.leaks import leftover_services

pytestmark = pytest.mark.slow

HOOK_ENTRY = Path(__file__).resolve().parents[2] / "memory_pipeline" / "hook_entry.py"


def status(env) -> dict:
    done = run_cli(["service", "status", "--json"], env, timeout=180)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_first_hook_starts_the_daemon_without_waiting_and_stop_keeps_it_stopped(tmp_path: Path):
    workspace = Workspace(tmp_path / "ws").create()
    env = hook_env(workspace.root, MEMORY_DAEMON_AUTOSTART="1")
    session_start = json.dumps(payload("SessionStart", None, source="startup")).encode()
    try:
        began = time.monotonic()
        hook = subprocess.run([sys.executable, "-S", str(HOOK_ENTRY), "hook", "claude-code"], input=session_start,
                              env=env, capture_output=True, timeout=120)
        print(f"first hook while the daemon starts: {time.monotonic() - began:.2f} s")
        assert hook.returncode == 0 and hook.stdout == b"", hook.stderr  # owed: the first prompt carries it
        pid = wait_for(lambda: daemon_pid(workspace), 180, 0.5, what="the daemon the hook started")
        wanted = {"reflect_schedule", "recall_pack_schedule", "maintenance_schedule", "friction_schedule"}
        running = wait_for(lambda: (s := status(env)["pipeline"])["runs_by"]["running"] and s["last_sensor_tick"]
                           and {x["name"] for x in s["schedules"]} >= wanted and s, 180, 0.5, what="a sensor tick, the schedules")
        assert running["runs_by"]["pid"] == pid and running["inbox_backlog"] == 0
        assert all(s["next_run"] for s in running["schedules"])

        again = subprocess.run([sys.executable, "-S", str(HOOK_ENTRY), "hook", "claude-code"], input=session_start,
                               env=env, capture_output=True, timeout=120)
        assert again.returncode == 0 and daemon_pid(workspace) == pid  # one daemon

        chosen = run_cli(["provider", "set", "codex"], env, timeout=180)  # the daemon takes the new provider
        assert chosen.returncode == 0 and b"daemon was restarted" in chosen.stdout, chosen.stderr
        assert daemon_pid(workspace) not in (None, pid)

        stopped = run_cli(["service", "stop"], env, timeout=180)
        assert stopped.returncode == 0 and b"daemon" in stopped.stdout, stopped.stderr
        assert daemon_pid(workspace) is None
        (workspace.state / "daemon-start-tried").unlink(missing_ok=True)  # not the retry pause: the user's stop keeps it down
        subprocess.run([sys.executable, "-S", str(HOOK_ENTRY), "hook", "claude-code"], input=session_start,
                       env=env, capture_output=True, timeout=120)
        time.sleep(3)
        assert daemon_pid(workspace) is None
        after = status(env)["pipeline"]["runs_by"]
        assert not after["running"] and "stopped by `service stop`" in after["note"]
    finally:
        run_cli(["service", "stop"], env, timeout=180)
    assert leftover_services(tmp_path) == []


def test_a_stop_while_a_hook_is_starting_the_daemon_wins(tmp_path: Path):
    """The hook's detached `service start` takes seconds (Dagster's storage, the imports): a `service stop`
    in that time finds no daemon yet; the start must not bring one up after it."""
    from memory_pipeline import hook_entry
    from memory_pipeline.resources.processes import command_line, own_pids, process_alive, working_dir

    workspace = Workspace(tmp_path / "ws").create()
    env = hook_env(workspace.root, MEMORY_DAEMON_AUTOSTART="1")
    try:
        assert hook_entry.start_daemon_detached(str(workspace.root), env)
        [starting] = wait_for(lambda: [pid for pid in own_pids() if working_dir(pid) == str(workspace.root)
                                       and "service start" in " ".join(command_line(pid))], 30, 0.05,
                              what="the hook's `service start`")
        stopped = run_cli(["service", "stop"], env, timeout=180)
        assert stopped.returncode == 0, stopped.stderr
        wait_for(lambda: not process_alive(starting), 180, 0.2, what="the hook's start to end")
        assert daemon_pid(workspace) is None
        assert (workspace.state / "daemon-stopped").exists()  # the user's stop stands
    finally:
        run_cli(["service", "stop"], env, timeout=180)
    assert leftover_services(tmp_path) == []


def test_a_service_manager_runs_the_daemon_in_the_foreground(tmp_path: Path):
    workspace = Workspace(tmp_path / "ws").create()
    env = hook_env(workspace.root, HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    enabled = run_cli(["service", "enable", "--json"], env)
    assert enabled.returncode == 0, enabled.stderr
    registration = json.loads(enabled.stdout)
    unit = Path(registration["path"])
    assert registration["manager"] == "systemd" and unit.parent == tmp_path / "config" / "systemd" / "user"
    print(f"systemd --user here: active={registration['active']} {registration['notes']}")
    text = unit.read_text()
    command = shlex.split(next(line for line in text.splitlines() if line.startswith("ExecStart="))[10:])
    assert command[-3:] == ["memory_pipeline.cli", "service", "daemon"]
    variables = dict(shlex.split(line[12:])[0].split("=", 1) for line in text.splitlines()
                     if line.startswith("Environment="))
    assert variables["MEMORY_WORKSPACE"] == str(workspace.root)
    if registration["active"]:  # a real user manager took it: leave it to it
        run_cli(["service", "disable"], env)
        return
    # what the manager would run: the pid it supervises is the daemon's
    manager = subprocess.Popen(command, env={**env, **variables}, cwd=workspace.root, start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_for(lambda: daemon_pid(workspace), 60, 0.5, what="the foreground daemon") == manager.pid
        shown = wait_for(lambda: (s := status(env)["pipeline"]["runs_by"])["running"] and s, 60, 0.5, what="status")
        assert shown["pid"] == manager.pid and shown["service_manager"] == str(unit)
        assert run_cli(["service", "stop"], env, timeout=180).returncode == 0
        assert manager.wait(timeout=60) in (0, -signal.SIGTERM)  # a clean exit: the manager does not restart it
    finally:
        terminate(manager.pid, (signal.SIGTERM, signal.SIGKILL), grace=20.0, group=True)
        disabled = run_cli(["service", "disable"], env)
    assert disabled.returncode == 0 and not unit.exists()
    assert leftover_services(tmp_path) == []


def get(url: str, host: str | None = None, origin: str | None = None, body: bytes | None = None) -> tuple[int, bytes]:
    headers = {"Content-Type": "application/json"}
    if host:
        headers["Host"] = host
    if origin:
        headers["Origin"] = origin
    request = urllib.request.Request(url, body, headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_the_ui_refuses_a_foreign_host_and_says_what_it_exposes(tmp_path: Path):
    workspace = Workspace(tmp_path / "ws").create()
    env = hook_env(workspace.root)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    ui = subprocess.Popen([sys.executable, "-m", "memory_pipeline.cli", "service", "ui", "--port", str(port)],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    query = json.dumps({"query": "{ version }"}).encode()
    try:
        wait_for(lambda: _answers(base), 240, 0.5, what="the UI")
        assert get(f"{base}/graphql", body=query)[0] == 200
        assert get(f"{base}/graphql", host=f"localhost:{port}", body=query)[0] == 200
        refused, said = get(f"{base}/graphql", host=f"attacker.example:{port}", body=query)  # DNS rebinding
        assert refused == 403 and b"refused" in said
        assert get(f"{base}/server_info", host="attacker.example")[0] == 403
        assert get(f"{base}/graphql", origin="http://attacker.example", body=query)[0] == 403
        assert daemon_pid(workspace) is not None  # the UI's sensors and schedules are the workspace daemon's
    finally:
        stopped = run_cli(["service", "stop"], env, timeout=180)
        output = ui.communicate(timeout=60)[0].decode()
    assert stopped.returncode == 0, stopped.stderr
    assert "any program of any user on this machine can reach the port" in output
    assert leftover_services(tmp_path) == []


def _answers(base: str) -> bool:
    try:
        urllib.request.urlopen(f"{base}/server_info", timeout=2)
    except OSError:
        return False
    return True



def test_the_daemon_and_its_service_unit_put_the_folder_holding_the_package_on_the_path(tmp_path):
    """The daemon runs from the workspace, not from the project: its PYTHONPATH must name the folder
    that holds memory_pipeline/, wherever the module that builds it sits in the package."""
    import os

    from memory_pipeline.resources.daemons.dagster_daemon import daemon_environment
    from memory_pipeline.resources.daemons.user_service import PACKAGE_ROOT
    from memory_pipeline.resources.workspace import Workspace

    env = daemon_environment(Workspace(tmp_path / "ws"), tmp_path / "dagster")
    first = Path(env["PYTHONPATH"].split(os.pathsep)[0])
    assert (first / "memory_pipeline" / "__init__.py").is_file()
    assert (PACKAGE_ROOT / "memory_pipeline" / "__init__.py").is_file()
