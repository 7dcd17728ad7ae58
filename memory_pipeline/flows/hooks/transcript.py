"""What every hook handler shares: its result, the SessionStart output, the session's transcript."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memory_pipeline.errors import BadInputError
from memory_pipeline.flows.intake.emit import MAX_TRANSCRIPT_BYTES
from memory_pipeline.models import HookPayload, Transcript
from memory_pipeline.stages.redact import redact
from memory_pipeline.stages.transcripts import detect_format, parse_transcript
from memory_pipeline.stages.transcripts.lines import head_text

MAX_CONTEXT_CHARS = 10_000  # Claude Code's limit on a hook's additionalContext


@dataclass
class HookResult:
    output: dict | None = None  # printed on stdout as JSON
    note: str | None = None  # one line on stderr


def session_start_output(text: str, event: str = "SessionStart") -> dict:
    """The hook's stdout JSON (SessionStart's, or a first prompt's that carries the briefing the session
    start was answered without); the text is redacted here, the last boundary before the agent."""
    text = redact(text)
    if len(text) > MAX_CONTEXT_CHARS:
        text = text[: MAX_CONTEXT_CHARS - 1] + "…"
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def transcript_file(payload: HookPayload) -> Path:
    """The payload's transcript: an existing Claude Code JSONL file, or BadInputError."""
    path = Path(payload.transcript_path or "").expanduser()
    if not path.is_file():
        raise BadInputError(f"transcript not found: {path}" if not path.exists() else f"not a file: {path}")
    found = detect_format(head_text([path]))  # a first line of several MB (a pasted prompt) is passed over
    if found != "claude-code":
        raise BadInputError(f"{path} is not a Claude Code transcript (it reads as {found})")
    return path


def parse_session(path: Path, session_id: str) -> Transcript:
    """The session's transcript (its newest MAX_TRANSCRIPT_BYTES when it is larger: `Transcript.cut` says so)."""
    return parse_transcript(path, format="claude-code", session_id=session_id, max_bytes=MAX_TRANSCRIPT_BYTES)
