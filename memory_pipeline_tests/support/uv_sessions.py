"""Issue 26's repeated correction, written in the three clients' own formats: in three sessions of
one repository the agent runs `pip install …`, it fails, and the user says "No, don't use pip here.
This repo uses uv: run `uv sync` and `uv run pytest`. I've told you this before."; the agent then
runs `uv add …`, which works. Each session also asks to run the tests before committing.

`uv_plan()` is (session, day, writer, steps) for a Claude Code session (the writer of
support/friction_sessions), a Codex rollout and a pi session, and seven ordinary sessions;
`write_uv_sessions(folder, repo)` writes them as files an `import` takes.
"""

from __future__ import annotations

import json
from pathlib import Path

from memory_pipeline_tests.support.friction_sessions import FILLER, claude_session

CORRECTION = "No, don't use pip here. This repo uses uv: run `uv sync` and `uv run pytest`. I've told you this before."
PIP_ERROR = ("error: externally-managed-environment\n\n× This environment is externally managed\n"
             "╰─> To install Python packages system-wide, try apt install python3-xyz")
TESTS_FIRST = ("Run the tests before committing.", "Run the tests before committing, please.",
               "Again: run the tests before committing.")
OTHER_WORK = ("Summarize the open issues", "Rename the billing module's helpers", "Add type hints to retry.py",
              "Explain the invoice rounding", "Add a changelog entry", "Tidy the imports in client.py",
              "Write a docstring for BillingClient")


def _steps(package: str, dev: bool, number: int) -> list[tuple]:
    add = f"uv add {'--dev ' if dev else ''}{package}"
    return [("user", f"Please add {package} and use it in the billing client."),
            ("bash", f"pip install {package}", PIP_ERROR, True),
            ("user", CORRECTION),
            ("bash", add, f"Resolved 12 packages in 41ms\n + {package}==0.27.2", False),
            ("bash", "uv run pytest -q", "31 passed in 0.84s", False),
            ("user", TESTS_FIRST[number]),
            ("user", "Keep the timeout at 10 seconds on every billing call."),
            ("user", "Thanks, commit it with a short message.")]


def codex_session(path: Path, session_id: str, cwd: str, day: str, steps: list[tuple]) -> Path:
    """A Codex CLI rollout: session_meta, each user turn twice (the event and the response item),
    shell calls as `exec_command` function calls whose output carries the exit code."""
    lines = [{"timestamp": f"{day}T10:00:00.000Z", "type": "session_meta",
              "payload": {"id": session_id, "timestamp": f"{day}T10:00:00.000Z", "cwd": cwd,
                          "originator": "codex_cli_rs", "cli_version": "0.169.0", "source": "cli"}}]

    def add(kind: str, payload: dict) -> None:
        lines.append({"timestamp": f"{day}T10:{len(lines):02d}:00.000Z", "type": kind, "payload": payload})

    for number, step in enumerate(steps):
        if step[0] == "user":
            add("event_msg", {"type": "user_message", "message": step[1]})
            add("response_item", {"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": step[1]}]})
            add("response_item", {"type": "message", "role": "assistant",
                                  "content": [{"type": "output_text", "text": "On it."}]})
        else:
            _, command, output, is_error = step
            call = f"call-{session_id}-{number}"
            add("response_item", {"type": "function_call", "name": "exec_command",
                                  "arguments": json.dumps({"cmd": command}), "call_id": call})
            add("response_item", {"type": "function_call_output", "call_id": call, "output": json.dumps(
                {"output": output, "metadata": {"exit_code": 1 if is_error else 0}})})
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def pi_session(path: Path, session_id: str, cwd: str, day: str, steps: list[tuple]) -> Path:
    """A pi session (version 3): a header, then message entries with 8-hex ids; `bash` tool calls and
    their toolResult with isError."""
    lines: list[dict] = [{"type": "session", "id": session_id, "timestamp": f"{day}T11:00:00.000Z", "cwd": cwd,
                          "provider": "anthropic", "modelId": "claude-sonnet-4-5", "version": 3}]

    def add(message: dict) -> None:
        parent = lines[-1].get("id") if len(lines) > 1 else None
        lines.append({"type": "message", "timestamp": f"{day}T11:{len(lines):02d}:00.000Z", "message": message,
                      "id": f"{len(lines):08x}", "parentId": parent})

    for number, step in enumerate(steps):
        if step[0] == "user":
            add({"role": "user", "content": [{"type": "text", "text": step[1]}]})
            add({"role": "assistant", "content": [{"type": "text", "text": "On it."}]})
        else:
            _, command, output, is_error = step
            call = f"toolu_{session_id}_{number}"
            add({"role": "assistant", "content": [{"type": "toolCall", "id": call, "name": "bash",
                                                   "arguments": {"command": command}}]})
            add({"role": "toolResult", "toolCallId": call, "toolName": "bash",
                 "content": [{"type": "text", "text": output}], "isError": is_error})
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def uv_plan() -> list[tuple[str, str, object, list[tuple]]]:
    """(session, day, writer, steps): the correction in three sessions, one per client format, and
    seven ordinary Claude Code sessions of the same repository (friction needs 10 observations)."""
    plan = [("uv-claude", "2026-11-16", claude_session, _steps("httpx", False, 0)),
            ("uv-codex", "2026-11-18", codex_session, _steps("pytest-httpx", True, 1)),
            ("uv-pi", "2026-11-20", pi_session, _steps("respx", True, 2))]
    for number, task in enumerate(OTHER_WORK):
        plan.append((f"work-{number}", f"2026-11-{15 + number}", claude_session, [("user", task), *FILLER]))
    return plan


def write_uv_sessions(folder: Path, repo: str) -> list[Path]:
    """The ten sessions as files under `folder` (their working directory: `repo`)."""
    folder.mkdir(parents=True, exist_ok=True)
    return [writer(folder / f"{sid}.jsonl", sid, repo, day, steps) for sid, day, writer, steps in uv_plan()]
