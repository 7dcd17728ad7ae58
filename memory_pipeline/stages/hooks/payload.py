"""Reading a Claude Code hook's stdin: bytes in, a checked HookPayload out, or a BadInputError
with a one-line reason (the hook prints it on stderr and exits 0)."""

from __future__ import annotations

import json

from pydantic import ValidationError

from memory_pipeline.errors import BadInputError
from memory_pipeline.models import HookPayload
from memory_pipeline.stages.events import check_session_id

KNOWN_EVENTS = ("PreCompact", "SessionStart", "SessionEnd", "UserPromptSubmit", "Stop")
NEEDS_TRANSCRIPT = ("PreCompact", "SessionEnd", "UserPromptSubmit")
MAX_STDIN_BYTES = 16 * 1024 * 1024


def parse_hook_payload(raw: bytes) -> HookPayload:
    if len(raw) > MAX_STDIN_BYTES:
        raise BadInputError(f"hook input is {len(raw)} bytes, over the {MAX_STDIN_BYTES}-byte limit")
    if not raw.strip():
        raise BadInputError("hook input is empty: expected the hook JSON on stdin")
    try:
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise BadInputError("hook input is not UTF-8 text") from None
    except RecursionError:
        raise BadInputError("hook input JSON is nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise BadInputError(f"hook input is not JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(document, dict):
        raise BadInputError("hook input must be a JSON object")
    try:
        payload = HookPayload.model_validate(document)
    except ValidationError as exc:
        missing = sorted({str(e["loc"][0]) for e in exc.errors() if e["loc"]})
        raise BadInputError(f"hook input lacks or mangles field(s): {', '.join(missing)}") from None
    if payload.hook_event_name not in KNOWN_EVENTS:
        raise BadInputError(
            f"unknown hook event {payload.hook_event_name!r}; handled: {', '.join(KNOWN_EVENTS)}"
        )
    check_session_id(payload.session_id)
    if payload.hook_event_name in NEEDS_TRANSCRIPT and not (payload.transcript_path or "").strip():
        raise BadInputError(f"{payload.hook_event_name} hook input has no transcript_path")
    return payload
