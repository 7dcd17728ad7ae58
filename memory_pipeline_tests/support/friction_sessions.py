"""Claude Code transcripts written for friction tests: user turns and Bash calls that fail or work.

`claude_session(path, session_id, cwd, day, steps)` writes a real Claude Code JSONL file: a step
is ("user", text), ("bash", command, output, is_error) or ("compact", summary). `plan(project)` is ten sessions over
seven days with known repeats: a correction in three sessions ("use uv, not pip"), `npm run build`
failing the same way in four sessions of one project (then `pnpm run build` works), two one-offs.
`ingest_sessions` takes them through the real path: emit, inbox, sessions, offline Observer.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.intake.inbox import take_inbox
from memory_pipeline.flows.observe import collect_sessions, observe_day
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.llm import LLMClient, default_offline_provider
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.support.doors import env_settings


def claude_session(path: Path, session_id: str, cwd: str, day: str, steps: list[tuple]) -> Path:
    lines, parent, minute = [], None, 0

    def line(kind: str, message: dict) -> None:
        nonlocal parent, minute
        uuid = f"{session_id}-{len(lines) + 1:03d}"
        lines.append({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": session_id, "cwd": cwd,
                      "timestamp": f"{day}T09:{minute:02d}:00.000Z", "message": message})
        parent, minute = uuid, minute + 1

    for number, step in enumerate(steps):
        if step[0] == "compact":  # the summary line Claude Code writes after compacting the context
            lines.append({"type": "system", "subtype": "compact_boundary", "uuid": f"{session_id}-b{number}",
                          "parentUuid": parent, "sessionId": session_id, "cwd": cwd,
                          "timestamp": f"{day}T09:{minute:02d}:00.000Z", "content": "Conversation compacted"})
            line("user", {"role": "user", "content": step[1]})
            lines[-1]["isCompactSummary"] = True
            continue
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


FILLER = [("user", "Please add a unit test for the parser"), ("user", "Can you run the linter on the package?"),
          ("user", "Update the README with the new flag"), ("user", "Thanks, commit it with a short message")]
NPM_FAILS = ("bash", "npm run build", "Exit code 1\nError: Cannot find module 'vite'\nRequire stack: /app/x.js", True)
PNPM_WORKS = ("bash", "pnpm run build", "built in 2.1s", False)
CORRECTIONS = {"s01": "no, use uv not pip", "s04": "I told you to use uv instead of pip!",
               "s07": "don't use pip here, we use uv"}


def plan(project: Path) -> list[tuple[str, str, str, list]]:
    """(session, day, cwd, steps) of the ten planted sessions."""
    api, web = str(project.parent / "api"), str(project)
    sessions = []
    for sid, day in (("s01", "2026-11-15"), ("s04", "2026-11-17"), ("s07", "2026-11-19")):
        sessions.append((sid, day, api, [("user", "Install the requests package"), ("user", CORRECTIONS[sid]),
                                         *FILLER]))
    for sid, day in (("s02", "2026-11-15"), ("s03", "2026-11-16"), ("s05", "2026-11-17"), ("s08", "2026-11-20")):
        sessions.append((sid, day, web, [("user", "Build the web app"), NPM_FAILS, PNPM_WORKS, *FILLER]))
    sessions.append(("s06", "2026-11-18", api, [("user", "no, the config lives in settings.toml"), *FILLER]))
    sessions.append(("s09", "2026-11-20", api, [("user", "Run the rust tests"),
                                                ("bash", "cargo test", "error[E0432]: unresolved import `foo`", True),
                                                *FILLER]))
    sessions.append(("s10", "2026-11-21", api, [("user", "Summarize the open issues"), *FILLER]))
    return sessions


def ingest_sessions(workspace: Workspace, store, tmp_path: Path, sessions) -> None:
    """The real path: emit each transcript, take the inbox, collect and observe every day (offline)."""
    ingest_files(workspace, store, [(claude_session(tmp_path / f"{sid}.jsonl", sid, cwd, day, steps), sid, day)
                                    for sid, day, cwd, steps in sessions])


def ingest_files(workspace: Workspace, store, files: list[tuple[Path, str, str]]) -> None:
    """(transcript, session, day) of any client format through emit, the inbox, sessions and the
    offline Observer."""
    for path, sid, day in files:
        captured = datetime.fromisoformat(f"{day}T18:00:00").replace(tzinfo=timezone.utc)
        emit_session_event(workspace, path, trigger="shutdown", session_id=sid, captured_at=captured, settings=env_settings())
    take_inbox(workspace, settings=env_settings())
    llm = LLMClient(default_offline_provider(), None)
    for day in sorted({day for _, _, day in files}):
        collect_sessions(workspace, day)
        observe_day(workspace, day, llm=llm, prompt=load_prompt("observer"), model="offline", redis_store=store, settings=env_settings())
