"""Short sessions are remembered, services stop: `import` → `ingest` → `recall` → `status` → `stop`, as a user runs them."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memory_pipeline.resources.processes import process_alive
from memory_pipeline_tests.cli.hook_helpers import hook_env, run_cli
from memory_pipeline_tests.support.leaks import leftover_services

pytestmark = pytest.mark.slow

TWO = [("The billing worker keeps dying with exit code 137 on the staging cluster",
        "Exit code 137 is the OOM killer: raise the billing worker's memory limit to 2Gi."),
       ("Done, it has stayed up for an hour now", "Good: keep the 2Gi limit in the helm values.")]
THREE = [("Rename the feature flag checkout_v2 to checkout_fast everywhere", "Renamed in 14 files."),
         ("Also update the LaunchDarkly dashboard note", "Updated the note."),
         ("Thanks, ship it", "Merged.")]
LATER = [(f"Next step {n}: move the cron job for invoice reminders to the queue scheduler", f"Step {n} done.")
         for n in range(1, 6)]


def claude_session(path: Path, session_id: str, turns: list[tuple[str, str]], start: datetime) -> Path:
    """A Claude Code transcript: one user line and one assistant line per turn, a minute apart."""
    lines, parent = [], None
    for n, (user, assistant) in enumerate(turns):
        for role, text in (("user", user), ("assistant", assistant)):
            uid = f"{session_id}-{start:%H%M}-{role}-{n}"
            message = ({"role": "user", "content": text} if role == "user" else
                       {"id": f"msg-{uid}", "role": "assistant", "model": "test", "content": [{"type": "text", "text": text}]})
            when = start + timedelta(minutes=2 * n + (role == "assistant"))
            lines.append(json.dumps({"type": role, "uuid": uid, "parentUuid": parent, "sessionId": session_id,
                                     "cwd": "/work/app", "isSidechain": False, "message": message,
                                     "timestamp": when.strftime("%Y-%m-%dT%H:%M:%S.000Z")}))
            parent = uid
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    return path


def cli_json(args: list[str], env: dict[str, str]) -> dict:
    done = run_cli([*args, "--json"], env, timeout=300)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return json.loads(done.stdout)


def wait_dead(pid: int, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process_alive(pid):
        time.sleep(0.2)
    return not process_alive(pid)


def top_session(query: str, env: dict[str, str]) -> str:
    return cli_json(["recall", query, "--tier", "messages", "--limit", "3", "--project", "app"], env)["hits"][0]["session_id"]


def test_short_sessions_are_found_by_recall_an_idle_redis_restarts_and_stop_leaves_nothing(tmp_path: Path):
    ws = tmp_path / "workspace"
    env = hook_env(ws, MEMORY_REDIS_IDLE_TIMEOUT="2")
    folder = tmp_path / "projects"
    day = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
    two = claude_session(folder / "two.jsonl", "short-two", TWO, day)
    claude_session(folder / "three.jsonl", "short-three", THREE, day + timedelta(hours=1))
    claude_session(folder / "short-two" / "subagents" / "agent-a1.jsonl", "short-two", TWO[:1], day)
    (folder / "empty.jsonl").write_text('{"type":"summary","summary":"nothing","leafUuid":"x"}\n', encoding="utf-8")
    try:
        report = cli_json(["import", str(folder)], env)
        items = {Path(item["path"]).name: item for item in report["items"]}
        # a window is observed by its work (stages/windows.py): 2 user messages and no tool call is
        # indexed only; 3 user messages is observed
        assert (items["two.jsonl"]["status"], items["two.jsonl"]["observed"]) == ("imported", False)
        assert items["two.jsonl"]["reason"].startswith("indexed, not observed: 2 user messages, 0 tool calls")
        assert (items["three.jsonl"]["status"], items["three.jsonl"]["observed"]) == ("imported", True)
        assert items["agent-a1.jsonl"]["status"] == items["empty.jsonl"]["status"] == "skipped"
        assert "subagent" in items["agent-a1.jsonl"]["reason"] and "empty" in items["empty.jsonl"]["reason"]
        assert (report["imported"], report["indexed_not_observed"], report["skipped"]) == (2, 1, 2)

        assert cli_json(["ingest"], env)["success"]
        status = cli_json(["status"], env)
        assert (status["indexed_not_observed"], status["pending_days"]) == (1, [])
        assert status["observations"] >= 1

        # every message of both short sessions is findable; recall counts its hits in Redis
        assert top_session("why does the billing worker die with exit code 137", env) == "short-two"
        running = {p["name"]: p for p in cli_json(["status"], env)["processes"]}
        assert {"recall-service", "redis-server", "redis-watchdog"} <= running.keys()
        assert all(p["uptime_s"] is not None and p["rss_bytes"] for p in running.values())

        # with the recall service (its last client) gone, Redis is idle: it stops after 2 s
        assert cli_json(["recall-service", "stop"], env)["pid"] == running["recall-service"]["pid"]
        assert wait_dead(running["redis-server"]["pid"]) and wait_dead(running["redis-watchdog"]["pid"])
        assert "redis-server" not in {p["name"] for p in cli_json(["status"], env)["processes"]}
        assert top_session("rename feature flag checkout_v2", env) == "short-three"  # starts both again
        running = {p["name"]: p for p in cli_json(["status"], env)["processes"]}
        assert {"recall-service", "redis-server", "redis-watchdog"} <= running.keys()

        # the session went on: its later, longer window is observed
        claude_session(two, "short-two", LATER, day + timedelta(hours=3))
        [later] = cli_json(["import", str(two)], env)["items"]
        assert (later["status"], later["observed"]) == ("imported", True)
        ingested = cli_json(["ingest"], env)
            # the day's observations: short-three's (observed at its import) and short-two's later window
        assert ingested["success"] and [d["observations"] for d in ingested["days"]] == [2]

        stopped = cli_json(["stop"], env)
        assert stopped["still_running"] == []
        pids = {p["pid"] for p in stopped["stopped"]} | {p["pid"] for p in running.values()}
        assert {p["name"] for p in stopped["stopped"]} >= {"recall-service", "redis-server"}
        assert not [pid for pid in pids if process_alive(pid)]
        assert leftover_services(tmp_path) == []
    finally:
        run_cli(["stop"], env)
