"""Corrections in the words users use, through the default path (`memory-pipeline bench corrections`).

Each case is a project of its own: a Claude Code session states a fact of the work, a session a week later
corrects it in other words ("Scratch that, Redis is on port 6380, not 6379"). Both are imported from a
`~/.claude/projects` folder, ingested (offline provider, no variable a user would not set), then `recall --json`
asks about it from the project's git folder. A case takes when the ledger's event of the correction supersedes
the event of the fact, and every recall hit that states the fact says what replaced it, below the correction.
With `short`, the correction is said in a session of its own line and the agent's "Got it." (no tool called,
no code written): how a user often tells the agent that something changed.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.worth import cli_output, user_env

# (what the first session states, how the later one corrects it, what is asked)
CASES = (
    ("The orders service runs on Postgres 16.", "The orders service is on Postgres 17 now.",
     "which Postgres version does the orders service run on"),
    ("The orders service runs on Postgres 16.", "We're on Postgres 17 now, not 16.",
     "which Postgres version does the orders service run on"),
    ("The orders service runs on Postgres 16.", "Correction: the orders service runs Postgres 17.",
     "which Postgres version does the orders service run on"),
    ("Redis listens on port 6379.", "Scratch that, Redis is on port 6380, not 6379.", "which port is Redis on"),
    ("We use npm for this repo.", "We use pnpm now.", "which package manager do we use"),
    ("We use npm for this repo.", "We dropped npm for pnpm.", "which package manager do we use"),
    ("Our logs go to Datadog.", "Logs go to Grafana Loki now instead of Datadog.", "where do our logs go"),
    ("The main branch is called trunk.", "The main branch is main now, not trunk.", "what is the main branch called"),
    ("Our tests run on Jest.", "Tests run on Vitest these days, not Jest.", "what test runner do we use"),
    ("The staging URL is staging.example.com.", "Wrong, the staging URL is staging2.example.com.",
     "what is the staging URL"),
    ("Deploys go through Jenkins.", "That's outdated: deploys go through Argo CD now.", "how do deploys go out"),
    ("The repo is called orders-service.", "Heads up: we renamed the repo to orders-api.", "what is the repo called"),
    ("The API lives at /v1.", "No, the API lives at /v2 now.", "where does the API live"),
    ("We deploy on Fridays.", "We stopped deploying on Fridays; we deploy on Tuesdays.", "when do we deploy"),
    ("Our tests run on Jest.", "We use Vitest now.", "what test runner do we use"),
    ("The frontend is built with Webpack.", "The frontend uses Vite now.", "what builds the frontend"),
)


def _session(folder: Path, cwd: Path, said: str, at: datetime, short: bool = False) -> None:
    """A Claude Code session of some work (observed, as a session of three requests is: stages/windows.py): the
    user's sentence among two requests, the agent running the tests and acknowledging; `short`: the sentence
    alone and the agent's acknowledgement."""
    sid = str(uuid.uuid4())
    stamp = lambda n: (at + timedelta(seconds=n)).isoformat(timespec="milliseconds").replace("+00:00", "Z")  # noqa: E731
    base = {"isSidechain": False, "userType": "external", "cwd": str(cwd), "sessionId": sid, "version": "2.1.40",
            "gitBranch": "main"}
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "git status"}}
    lines = [
        {"type": "user", "message": {"role": "user", "content": "Run the test suite before we start."}},
        {"type": "assistant", "message": {"role": "assistant", "model": "claude-sonnet-4-5", "id": "msg_0",
                                          "type": "message", "content": [{"type": "text", "text": "All 42 pass."}],
                                          "stop_reason": "end_turn"}},
        {"type": "user", "message": {"role": "user", "content": said}},
        {"type": "assistant", "message": {"role": "assistant", "model": "claude-sonnet-4-5", "id": "msg_1",
                                          "type": "message", "content": [call], "stop_reason": "tool_use"}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "nothing to commit, working tree clean"}]}},
        {"type": "assistant", "message": {"role": "assistant", "model": "claude-sonnet-4-5", "id": "msg_2",
                                          "type": "message", "content": [{"type": "text", "text": "Noted."}],
                                          "stop_reason": "end_turn"}},
        {"type": "user", "message": {"role": "user", "content": "Thanks, that's all for today."}},
    ]
    if short:
        lines = [lines[2], {"type": "assistant", "message": {
            "role": "assistant", "model": "claude-sonnet-4-5", "id": "msg_0", "type": "message",
            "content": [{"type": "text", "text": "Got it, I'll keep that in mind."}], "stop_reason": "end_turn"}}]
    parent = None
    with (folder / f"{sid}.jsonl").open("w", encoding="utf-8") as handle:
        for n, line in enumerate(lines):
            uid = str(uuid.uuid4())
            handle.write(json.dumps(base | line | {"uuid": uid, "parentUuid": parent, "timestamp": stamp(n)}) + "\n")
            parent = uid


def _ledger(workspace: Path) -> list[dict]:
    path = workspace / "memory" / "ledger.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def bench_corrections(today: datetime | None = None, short: bool = False) -> list[dict]:
    """Each case's verdict: whether the correction superseded the fact, and what recall answered; `short`: each
    correction said in a session of one line."""
    now = today or datetime.now(UTC)
    with tempfile.TemporaryDirectory(prefix="bench-corrections-") as name:
        root = Path(name)
        workspace, home = root / "workspace", root / "home" / ".claude" / "projects"
        env = user_env(workspace)
        folders = []
        for n, (old, new, _) in enumerate(CASES, start=1):
            repo = root / "src" / f"service-{n:02d}"
            subprocess.run(["git", "init", "-q", str(repo)], check=True, capture_output=True)
            sessions = home / str(repo).replace("/", "-")
            sessions.mkdir(parents=True)
            _session(sessions, repo, old, now - timedelta(days=14, hours=n))
            _session(sessions, repo, new, now - timedelta(days=7, hours=n), short=short)
            folders.append(repo)
        try:
            cli_output(["import", str(home)], env, root)
            cli_output(["ingest"], env, root)
            events = _ledger(workspace)
            return [_verdict(case, repo, events, env) for case, repo in zip(CASES, folders, strict=True)]
        finally:
            cli_output(["service", "stop"], env, root)


def _verdict(case: tuple[str, str, str], repo: Path, events: list[dict], env: dict[str, str]) -> dict:
    old, new, question = case
    project = repo.name
    ours = [e for e in events if e.get("project") == project]
    first = next((e for e in ours if e.get("content", "").rstrip(".") == old.rstrip(".")), None)
    update = next((e for e in ours if first is not None and e.get("supersedes") == first["id"]), None)
    hits = json.loads(cli_output(["recall", question, "--json", "--no-service"], env, repo))["hits"]
    stale = [n for n, h in enumerate(hits) if old.rstrip(".") in h["text"]]
    marked = bool(stale) and all(hits[n].get("replaced_by") for n in stale)
    return {"fact": old, "correction": new, "kept": first is not None, "takes": update is not None,
            "recall_first": hits[0]["text"] if hits else "", "old_marked": marked or not stale}


def table(verdicts: list[dict], short: bool = False) -> list[str]:
    takes = sum(v["takes"] for v in verdicts)
    said = "each said in a session of one line; " if short else ""
    lines = [f"{takes} of {len(verdicts)} corrections supersede the fact they correct "
             f"({said}import → ingest, offline; recall from each project's folder)",
             "| fact | correction | supersedes | every hit of the old fact marked | recall's first hit |",
             "|---|---|---|---|---|"]
    for v in verdicts:
        fact = v["fact"] if v["kept"] else f"{v['fact']} (not kept)"
        lines.append(f"| {fact} | {v['correction']} | {'yes' if v['takes'] else 'no'} | "
                     f"{'yes' if v['old_marked'] else 'no'} | {v['recall_first'][:70]} |")
    return lines
