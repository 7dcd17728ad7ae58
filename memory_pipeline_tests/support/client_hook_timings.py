"""Each hook's duration as Claude Code itself logs it (`--debug-file`), for a real session:
`python -m memory_pipeline_tests.support.client_hook_timings [--turns 12] [--sessions 3] [--command CMD]`.

SESSIONS `claude -p --input-format stream-json` processes against the loopback model, each TURNS
user turns (one at a time) with a `/compact` in the middle, hooks installed by `install-hooks` (or `--command CMD` in their
place, e.g. `python -m memory_pipeline.cli hook claude-code` for the whole CLI per call). Claude
Code logs `finished with status 0 (87ms)` for SessionStart, UserPromptSubmit and Stop; for
PreCompact and SessionEnd it logs no duration, so those are the gap since its previous log line
(an upper bound). The very first SessionStart (which starts the hook service) is shown apart.
Prints median and p95 per event. Timings only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
import uuid
from datetime import datetime
from pathlib import Path

from memory_pipeline_tests.support.agent_clients import ClientHome, installed_clients
from memory_pipeline_tests.support.loopback_models import LoopbackModels

LINE = re.compile(r"^(\S+) \[DEBUG\] (?:Hooks: )?(\w+)(?::\w+)? \[[^\]]*hook claude-code\] (?:finished|completed) "
                  r"with status (\d+)(?: \((\d+)ms\))?")


def durations(debug_log: Path) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    previous = None
    for line in debug_log.read_text(encoding="utf-8", errors="replace").splitlines():
        stamp = line.split(" ", 1)[0]
        match = LINE.match(line)
        if match:
            if match[4]:
                ms = float(match[4])
            else:
                ms = (datetime.fromisoformat(stamp) - datetime.fromisoformat(previous)).total_seconds() * 1000
            found.setdefault(match[2], []).append(ms)
        if stamp[:4].isdigit():
            previous = stamp
    return found


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered):.0f} ms, p95 {p95:.0f} ms (n={len(ordered)})"


def measure(turns: int, command: str | None, sessions: int = 1) -> dict[str, list[float]]:
    clients = installed_clients()
    if isinstance(clients, str):
        raise SystemExit(f"agent clients unavailable: {clients}")
    with tempfile.TemporaryDirectory(prefix="mp-client-hooks-") as tmp, LoopbackModels() as models:
        root = Path(tmp)
        home = ClientHome(clients, root / "home", models.url, root / "workspace")
        project = root / "project"
        project.mkdir()
        assert home.install_hooks(project).returncode == 0
        if command:
            settings = home.claude_settings
            document = json.loads(settings.read_text())
            for groups in document["hooks"].values():
                for group in groups:
                    for hook in group["hooks"]:
                        hook["command"] = f"MEMORY_WORKSPACE={home.workspace} {command}"
            settings.write_text(json.dumps(document))
        texts = [f"Step {n}: check the orders-api handler number {n}." for n in range(turns)]
        texts.insert(turns // 2, "/compact")
        found: dict[str, list[float]] = {}
        for number in range(sessions):
            log = root / f"debug-{number}.log"
            status = home.claude_conversation(["--session-id", str(uuid.uuid4()), "--debug-file", str(log)],
                                              project, texts, timeout=600)
            if status != 0:
                raise SystemExit(f"claude exited {status}")
            for event, values in durations(log).items():
                if number == 0 and event == "SessionStart":  # the very first call starts the service
                    found["first SessionStart"], values = values[:1], values[1:]
                found.setdefault(event, []).extend(values)
        home.settle()
        home.memory(["stop"], cwd=project, timeout=60)
        return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=12, help="user turns per session")
    parser.add_argument("--sessions", type=int, default=3, help="sessions, one client process each")
    parser.add_argument("--command", help="the hook command to time instead of the installed one")
    args = parser.parse_args()
    for event, values in measure(args.turns, args.command, args.sessions).items():
        print(f"{event:<18} {summary(values)}")


if __name__ == "__main__":
    main()
