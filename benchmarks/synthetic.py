"""Synthetic but realistic Claude Code sessions for benchmarks (deterministic by seed)."""

from __future__ import annotations

import json
import random
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

TOPICS = [
    ("the flaky Redis connection pool", "redis/pool.py", "max_connections was 10 while 32 workers shared it",
     "raised max_connections to 64 and added a health check"),
    ("slow pagination in the orders API", "api/orders.py", "OFFSET pagination scanned 2M rows",
     "switched to keyset pagination on (created_at, id)"),
    ("the failing CI cache step", ".github/workflows/ci.yml", "the cache key ignored uv.lock",
     "keyed the cache on hashFiles('uv.lock')"),
    ("memory growth in the worker", "worker/consumer.py", "an unbounded dict of retry states",
     "replaced it with an LRU of 10k entries"),
    ("timezone bugs in the report job", "reports/daily.py", "naive datetimes compared with aware ones",
     "made every timestamp UTC-aware at the boundary"),
    ("the Docker image size", "Dockerfile", "build tools left in the final stage",
     "moved to a multi-stage build on python:3.11-slim"),
]
PREFERENCES = [
    "Always use uv, never pip, in this repo.",
    "I prefer small commits with one change each.",
    "Never push directly to main; open a PR.",
    "We use ruff for formatting, not black.",
    "Don't add new dependencies without asking me first.",
]


def _line(rng: random.Random, kind: str, session: str, when: datetime, message: dict,
          parent: str | None) -> tuple[str, str]:
    uid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    record = {"type": kind, "uuid": uid, "parentUuid": parent, "sessionId": session, "cwd": "/home/dev/app",
              "timestamp": when.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "isSidechain": False, "message": message}
    return json.dumps(record), uid


def make_session(rng: random.Random, session: str, start: datetime, turns: int = 8) -> str:
    """One Claude Code JSONL transcript: asks, findings, a fix, a preference, edits."""
    topic, path, cause, fix = rng.choice(TOPICS)
    lines, parent, when = [], None, start
    script = [
        f"Can you look into {topic}? It started failing again this morning.",
        rng.choice(PREFERENCES),
        f"What did you find in {path}?",
        f"OK, the root cause is {cause}. Let's go with the fix: {fix}.",
        "Run the tests again and show me the failures, if any.",
        "Good. Remember that this service runs on Python 3.11 in production.",
        "Decided: we keep the old endpoint for one release because mobile clients still call it.",
        "Commit it and write a short summary.",
    ]
    for i in range(turns):
        when += timedelta(minutes=rng.randint(1, 6))
        text, parent = _line(rng, "user", session, when, {"role": "user", "content": script[i % len(script)]}, parent)
        lines.append(text)
        when += timedelta(seconds=rng.randint(10, 50))
        reply = (f"I read {path}. The problem is that {cause}. I will apply the fix: {fix}."
                 if i % 2 else f"Looking at {path} now; the logs show repeated timeouts around {topic}.")
        content = [{"type": "text", "text": reply},
                   {"type": "tool_use", "id": f"toolu_{i}_{session[:6]}", "name": "Edit",
                    "input": {"file_path": f"/home/dev/app/{path}", "old_string": "a", "new_string": "b"}}]
        message = {"id": f"msg_{i}_{session[:8]}", "role": "assistant", "model": "claude-sonnet-4-5",
                   "content": content, "usage": {"input_tokens": 2000 + 900 * i, "output_tokens": 200}}
        text, parent = _line(rng, "assistant", session, when, message, parent)
        lines.append(text)
        result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i}_{session[:6]}",
                                               "content": "The file has been updated successfully."}]}
        text, parent = _line(rng, "user", session, when + timedelta(seconds=2), result, parent)
        lines.append(text)
    return "\n".join(lines) + "\n"


def write_sessions(folder: Path, count: int, day: datetime, seed: int = 7, turns: int = 8) -> list[Path]:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(count):
        session = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        start = day.replace(hour=8, minute=0, tzinfo=timezone.utc) + timedelta(minutes=7 * n)
        path = folder / f"{session}.jsonl"
        path.write_text(make_session(rng, session, start, turns), encoding="utf-8")
        paths.append(path)
    return paths
