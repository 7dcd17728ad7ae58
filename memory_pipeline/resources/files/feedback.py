"""Echo/fizzle files: what each session was given (state/feedback/injected/<session>.json) and the
agent answers waiting to be judged (state/feedback/queue/). Writing either is cheap, so the hooks
stay fast; judging (which loads the embedding model) runs later from the queue."""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path

from memory_pipeline.resources.workspace import Workspace, ensure_dir

MAX_ANSWER_CHARS = 64_000  # what is judged of one answer (a 1 MB answer is cut, not refused)


class FeedbackFiles:
    def __init__(self, workspace: Workspace):
        self.workspace = workspace
        self.root = workspace.state_path("feedback")

    def _injected_path(self, session_id: str) -> Path:
        return ensure_dir(self.root / "injected") / f"{session_id}.json"

    def injected(self, session_id: str) -> list[dict]:
        path = self._injected_path(session_id)
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []

    def save_injected(self, session_id: str, items: list[dict]) -> None:
        self.workspace.write_json(self._injected_path(session_id), items)

    def record_injected(self, session_id: str, items: list[dict], kind: str, at: datetime) -> int:
        """Add what a hook injected (id, text); an id already waiting for a verdict is not added twice."""
        known = self.injected(session_id)
        waiting = {i["id"] for i in known if not i.get("settled")}
        new = [{"id": i["id"], "text": i["text"], "kind": kind, "at": at.isoformat(), "answers": 0, "settled": None}
               for i in items if i["id"] not in waiting]
        if new:
            self.save_injected(session_id, known + new)
        return len(new)

    def enqueue_answer(self, session_id: str, text: str, at: datetime, *, final: bool = False) -> Path:
        path = ensure_dir(self.root / "queue") / f"{time.time_ns()}-{session_id}.json"
        self.workspace.write_json(path, {"session_id": session_id, "answer": text[:MAX_ANSWER_CHARS],
                                         "at": at.isoformat(), "final": final})
        return path

    def queued(self) -> list[Path]:
        folder = self.root / "queue"
        return sorted(folder.glob("*.json")) if folder.is_dir() else []

    def append_verdicts(self, rows: list[dict]) -> None:
        if rows:
            path = ensure_dir(self.root) / "verdicts.jsonl"
            self.workspace.update_text(path, lambda old: (old or "") + "".join(json.dumps(r) + "\n" for r in rows),
                                       lock_name="feedback-verdicts")


def record_injected(workspace: Workspace, session_id: str, items: list[tuple[str, str]], kind: str,
                    at: datetime) -> int:
    """What a hook gave the session (id, text), so its answers can be judged later. A hook must
    not fail for this: an unwritable folder records nothing."""
    try:
        return FeedbackFiles(workspace).record_injected(session_id, [{"id": i, "text": t} for i, t in items],
                                                        kind, at)
    except OSError:
        return 0
