"""Registering the workspace's Dagster daemon with the user's service manager, so it runs from
login to logout and comes back after a crash: a `systemd --user` unit on Linux, a launchd agent
on macOS. The manager runs `python -m memory_pipeline.cli service daemon` (the daemon in the
foreground, its pid in state/daemon.pid). Where neither manager answers, `describe_fallback` says
what to do instead.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

import memory_pipeline
from memory_pipeline.config import user_config_home
from memory_pipeline.resources.workspace import Workspace, atomic_write_text

PACKAGE_ROOT = Path(memory_pipeline.__file__).resolve().parents[1]  # the folder holding the package


@dataclass
class Registration:
    manager: str  # systemd | launchd | none
    path: str | None = None  # the unit or plist written (or removed)
    active: bool = False  # the manager runs it now
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"manager": self.manager, "path": self.path, "active": self.active, "notes": self.notes}


def service_name(workspace: Workspace) -> str:
    """One per workspace: memory-pipeline-<8 hex of its path>."""
    return "memory-pipeline-" + hashlib.sha256(str(workspace.root).encode()).hexdigest()[:8]


def manager_kind() -> str:
    system = platform.system()
    if system == "Darwin" and shutil.which("launchctl"):
        return "launchd"
    if system == "Linux" and shutil.which("systemctl"):
        return "systemd"
    return "none"


def daemon_arguments() -> list[str]:
    return [sys.executable, "-m", "memory_pipeline.cli", "service", "daemon"]


def daemon_variables(workspace: Workspace, home: Path | None) -> dict[str, str]:
    variables = {"MEMORY_WORKSPACE": str(workspace.root), "PYTHONPATH": str(PACKAGE_ROOT)}
    if home is not None:
        variables["DAGSTER_HOME"] = str(home)
    return variables


def systemd_unit(workspace: Workspace, variables: dict[str, str]) -> str:
    def quoted(value: str) -> str:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

    environment = "\n".join(f"Environment={quoted(f'{k}={v}')}" for k, v in sorted(variables.items()))
    return f"""[Unit]
Description=memory-pipeline: sensors and schedules for {workspace.root}

[Service]
Type=simple
ExecStart={" ".join(quoted(part) for part in daemon_arguments())}
WorkingDirectory={quoted(str(workspace.root))}
{environment}
Restart=on-failure
RestartSec=30
KillMode=control-group
TimeoutStopSec=30

[Install]
WantedBy=default.target
"""


def launchd_plist(label: str, workspace: Workspace, variables: dict[str, str]) -> str:
    arguments = "".join(f"<string>{escape(part)}</string>" for part in daemon_arguments())
    environment = "".join(f"<key>{escape(k)}</key><string>{escape(v)}</string>" for k, v in sorted(variables.items()))
    log = escape(str(workspace.state_path("daemon_log")))
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
<key>Label</key><string>{escape(label)}</string>
<key>ProgramArguments</key><array>{arguments}</array>
<key>EnvironmentVariables</key><dict>{environment}</dict>
<key>WorkingDirectory</key><string>{escape(str(workspace.root))}</string>
<key>RunAtLoad</key><true/>
<key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>
<key>StandardOutPath</key><string>{log}</string>
<key>StandardErrorPath</key><string>{log}</string>
</dict></plist>
"""


def unit_path(workspace: Workspace, home: Path, kind: str) -> Path | None:
    name = service_name(workspace)
    if kind == "systemd":
        return user_config_home(home) / "systemd" / "user" / f"{name}.service"
    if kind == "launchd":
        return home / "Library" / "LaunchAgents" / f"com.{name}.plist"
    return None


def _run(command: list[str]) -> tuple[bool, str]:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return False, str(exc)
    return done.returncode == 0, (done.stderr or done.stdout).strip()


def register(workspace: Workspace, dagster_home: Path | None, home: Path, kind: str | None = None) -> Registration:
    """Write the unit (or plist) and ask the manager to start it now and at each login."""
    kind = kind or manager_kind()
    path = unit_path(workspace, home, kind)
    if path is None:
        return Registration("none", notes=[describe_fallback()])
    path.parent.mkdir(parents=True, exist_ok=True)
    variables = daemon_variables(workspace, dagster_home)
    name = service_name(workspace)
    if kind == "systemd":
        atomic_write_text(path, systemd_unit(workspace, variables), mode=0o644)
        ok, said = _run(["systemctl", "--user", "daemon-reload"])
        if ok:
            ok, said = _run(["systemctl", "--user", "enable", "--now", f"{name}.service"])
        if not ok:
            return Registration(kind, str(path), notes=[
                f"systemd --user did not answer ({said or 'no reason given'}); the unit is written: run "
                f"`systemctl --user enable --now {name}.service` in a session that has a user manager "
                "(or `loginctl enable-linger` for one that outlives logins). Until then " + describe_fallback()])
        return Registration(kind, str(path), active=True)
    label = f"com.{name}"
    atomic_write_text(path, launchd_plist(label, workspace, variables), mode=0o644)
    ok, said = _run(["launchctl", "bootstrap", f"gui/{os.getuid()}", str(path)])
    notes = [] if ok else [f"launchctl bootstrap said: {said}; the plist is written and loads at the next login"]
    return Registration(kind, str(path), active=ok, notes=notes)


def unregister(workspace: Workspace, home: Path, kind: str | None = None) -> Registration:
    """Stop and remove the unit (or plist); nothing to do when there is none."""
    kind = kind or manager_kind()
    path = unit_path(workspace, home, kind)
    if path is None or not path.exists():
        return Registration(kind, None, notes=["nothing registered"])
    name = service_name(workspace)
    notes = []
    if kind == "systemd":
        ok, said = _run(["systemctl", "--user", "disable", "--now", f"{name}.service"])
        if not ok:
            notes.append(f"systemctl --user said: {said}")
        path.unlink()
        _run(["systemctl", "--user", "daemon-reload"])
    else:
        ok, said = _run(["launchctl", "bootout", f"gui/{os.getuid()}/com.{name}"])
        if not ok:
            notes.append(f"launchctl bootout said: {said}")
        path.unlink()
    return Registration(kind, str(path), notes=notes)


def registered(workspace: Workspace, home: Path) -> str | None:
    """The unit or plist registered for this workspace, if any."""
    path = unit_path(workspace, home, manager_kind())
    return str(path) if path is not None and path.exists() else None


def describe_fallback() -> str:
    return ("without a service manager the first hook of each session starts the daemon (MEMORY_DAEMON_AUTOSTART), "
            "or run `memory-pipeline service start` from your login script (~/.profile)")
