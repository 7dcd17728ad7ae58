"""A Claude Code transcript of many tiny messages for `bench ingest --tiny-messages N`.

N messages alternating user and assistant, each a few words ("ok, next: step 4182"), with fresh
uuids chained by parentUuid and timestamps spread over one day: the shape that made a session of
100k messages take 256 s and 4.1 GB to ingest, while its file is only ~45 MB. Written line by line.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

SESSION_ID = "71117171-0000-4000-8000-000000100000"
START = datetime(2026, 11, 3, 0, 30, tzinfo=UTC)
SPAN = timedelta(hours=22)
WORDS = ("ok", "next", "done", "run it", "looks good", "again", "fix the test", "push", "check lint", "thanks")


def _line(n: int, parent: str | None, at: datetime) -> tuple[str, dict]:
    uid = str(uuid.uuid5(uuid.NAMESPACE_OID, f"tiny-{n}"))
    text = f"{WORDS[n % len(WORDS)]}: step {n}"
    base = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/src/tiny",
            "sessionId": SESSION_ID, "version": "2.1.40", "gitBranch": "main", "uuid": uid,
            "timestamp": at.isoformat(timespec="milliseconds").replace("+00:00", "Z")}
    if n % 2 == 0:
        return uid, base | {"type": "user", "message": {"role": "user", "content": text}}
    message = {"model": "claude-sonnet-4-5", "id": f"msg_tiny{n:07d}", "type": "message", "role": "assistant",
               "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}
    return uid, base | {"type": "assistant", "requestId": f"req_tiny{n:07d}", "message": message}


def write_tiny_transcript(path: Path, messages: int) -> dict:
    path.parent.mkdir(parents=True, exist_ok=True)
    step = SPAN / max(messages, 1)
    parent = None
    with path.open("w", encoding="utf-8") as handle:
        for n in range(messages):
            parent, record = _line(n, parent, START + step * n)
            handle.write(json.dumps(record) + "\n")
    return {"path": str(path), "bytes": path.stat().st_size, "lines": messages}
