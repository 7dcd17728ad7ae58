"""One hook call, start to end: the hook's stdin in, what the hook prints out (stdout, stderr).

Shared by the CLI (`python -m memory_pipeline.cli hook claude-code`) and the hook service
(services/hook_service.py), so both print the same thing. Never raises: problems become one
`memory-pipeline hook: …` line on stderr.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory_pipeline.config import Settings
    from memory_pipeline.flows.hooks.transcript import HookResult


def _note(text: object) -> str:
    return f"memory-pipeline hook: {' '.join(str(text).split())}\n"


def _workspace(settings: Settings):
    """The workspace, not created here: a hook that refuses its input leaves no trace."""
    from memory_pipeline.resources.workspace import Workspace

    return Workspace(settings.workspace)


def _safely(action: Callable[[], HookResult]) -> tuple[str, str]:
    from memory_pipeline.errors import BadInputError, MemoryPipelineError

    try:
        result = action()
    except BadInputError as exc:
        return "", _note(exc)
    except MemoryPipelineError as exc:
        return "", _note(f"failed: {exc}")
    except Exception as exc:  # noqa: BLE001 — a hook must not break the agent; say what happened
        return "", _note(f"internal error: {type(exc).__name__}: {exc}")
    out = json.dumps(result.output, ensure_ascii=False) + "\n" if result.output is not None else ""
    return out, _note(result.note) if result.note else ""


def hook_reply(raw: bytes, settings: Settings, now: datetime | None = None) -> tuple[str, str]:
    """A Claude Code hook call (its stdin bytes) → (stdout, stderr), under the door's settings."""

    def act():
        from memory_pipeline.flows.hooks.claude_code import run_claude_code_hook
        from memory_pipeline.stages.hooks.payload import parse_hook_payload

        return run_claude_code_hook(_workspace(settings), parse_hook_payload(raw), now=now, settings=settings)

    return _safely(act)


def refresh_reply(session_id: str, settings: Settings) -> tuple[str, str]:
    """`hook claude-code --refresh-recall SESSION` → (stdout, stderr)."""

    def act():
        from memory_pipeline.flows.hooks.context import refresh_recall_cache
        from memory_pipeline.stages.events import check_session_id

        return refresh_recall_cache(_workspace(settings), settings, check_session_id(session_id))

    return _safely(act)


def checkpoint_reply(session_id: str, settings: Settings) -> tuple[str, str]:
    """`hook claude-code --index-checkpoint SESSION` → (stdout, stderr)."""

    def act():
        from memory_pipeline.flows.hooks.checkpoint_index import index_checkpoint
        from memory_pipeline.stages.events import check_session_id

        return index_checkpoint(_workspace(settings), settings, check_session_id(session_id))

    return _safely(act)
