"""Claude Code transcripts written for friction tests: user turns and Bash calls that fail or work.

`claude_session(path, session_id, cwd, day, steps)` writes a real Claude Code JSONL file: a step
is ("user", text) or ("bash", command, output, is_error). Emitting it goes through the real path.
"""

from __future__ import annotations

import json
from pathlib import Path


def claude_session(path: Path, session_id: str, cwd: str, day: str, steps: list[tuple]) -> Path:
    lines, parent, minute = [], None, 0

    def line(kind: str, message: dict) -> None:
        nonlocal parent, minute
        uuid = f"{session_id}-{len(lines) + 1:03d}"
        lines.append({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": session_id, "cwd": cwd,
                      "timestamp": f"{day}T09:{minute:02d}:00.000Z", "message": message})
        parent, minute = uuid, minute + 1

    for number, step in enumerate(steps):
        if step[0] == "user":
            line("user", {"role": "user", "content": step[1]})
            line("assistant", {"id": f"msg-{session_id}-{number}", "role": "assistant",
                               "content": [{"type": "text", "text": "On it."}]})
        else:
            _, command, output, is_error = step
            call = f"toolu-{session_id}-{number}"
            line("assistant", {"id": f"msg-{session_id}-{number}", "role": "assistant", "content": [
                {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}]})
            line("user", {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": call, "content": output, "is_error": is_error}]})
    path.write_text("\n".join(json.dumps(item) for item in lines) + "\n", encoding="utf-8")
    return path
