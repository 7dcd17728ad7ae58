"""Running an agent's own CLI (Claude Code, Codex) as a model: one process per answer, no tools,
no hooks, no saved session, in an empty folder, so the call cannot act or feed itself back in."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from memory_pipeline.config import child_environment
from memory_pipeline.errors import LLMError
from memory_pipeline.resources.llm.base import LLMTransientError

# An answer the CLI reports as failed but worth asking again: rate limit, overload, 5xx, network.
TRANSIENT_WORDS = re.compile(r"\b(429|5\d\d|overloaded|rate.?limit|timed? ?out|ECONNRESET|ECONNREFUSED|connection)\b",
                             re.IGNORECASE)


def failure(where: str, detail: str) -> LLMError:
    """LLMTransientError when `detail` reads as a passing failure, else LLMError."""
    text = f"{where}: {' '.join(detail.split())[:600]}"
    return LLMTransientError(text) if TRANSIENT_WORDS.search(detail) else LLMError(text)


def run_cli(argv: list[str], *, stdin: str, timeout: float, where: str, cwd: Path) -> str:
    """The CLI's stdout; a missing binary, a timeout or a failed exit become typed errors."""
    try:
        done = subprocess.run(argv, input=stdin, cwd=cwd, env=child_environment(), capture_output=True,
                              text=True, timeout=timeout)
    except FileNotFoundError as error:
        raise LLMError(f"{where}: {argv[0]} not found; install it or point the command setting at it") from error
    except subprocess.TimeoutExpired as error:
        raise LLMTransientError(f"{where}: no answer within {timeout:.0f} s") from error
    if done.returncode != 0:
        raise failure(where, f"exit {done.returncode}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def empty_folder() -> tempfile.TemporaryDirectory:
    """Where the CLI runs: no project instructions (CLAUDE.md, AGENTS.md) to pick up."""
    return tempfile.TemporaryDirectory(prefix="memory-llm-")
