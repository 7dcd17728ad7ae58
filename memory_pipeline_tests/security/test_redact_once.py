"""A session is redacted once, when `sessions` stores it (flows/observe.collect_sessions), and
fully: the stored session and what the Observer is sent hold none of the secrets."""

from __future__ import annotations

import ast
from datetime import datetime, timezone

from memory_pipeline.flows import observe as observe_flow
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.intake.inbox import take_inbox
from memory_pipeline.prompts import load_prompt
from memory_pipeline.resources.llm import LLMClient, default_offline_provider
from memory_pipeline.resources.files.observation_files import sessions_path
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline_tests.security.secret_samples import SECRETS
from memory_pipeline_tests.support.friction_sessions import claude_session
from memory_pipeline_tests.support.paths import PROJECT_ROOT
from memory_pipeline_tests.support.doors import env_settings

DAY = "2026-11-21"
SAMPLES = SECRETS[:6]


class RecordingOffline:
    """The offline provider, keeping every prompt it is sent."""

    def __init__(self):
        self.provider, self.prompts = default_offline_provider(), []
        self.name = self.provider.name

    def complete(self, **call):
        self.prompts.append(call["system"] + call["prompt"])
        return self.provider.complete(**call)


def test_redact_transcript_is_called_in_one_place_only():
    callers = []
    for path in (PROJECT_ROOT / "memory_pipeline").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "redact_transcript":
                callers.append(path.relative_to(PROJECT_ROOT).as_posix())
    assert callers == ["memory_pipeline/flows/observe.py"]


def test_a_session_is_redacted_exactly_once_and_fully(tmp_path, monkeypatch):
    workspace = Workspace(tmp_path / "ws").create()
    steps = [("user", f"please use this: {text}") for text, _ in SAMPLES] + [("user", "thanks, commit it")]
    source = claude_session(tmp_path / "s1.jsonl", "s1", "/home/dev/app", DAY, steps)
    emitted = emit_session_event(workspace, source, trigger="shutdown",
                                 captured_at=datetime.fromisoformat(f"{DAY}T18:00:00+00:00"), settings=env_settings())
    take_inbox(workspace, settings=env_settings())
    # an event written before snapshots were redacted (or with inline messages): raw secrets on disk
    (workspace.root / emitted.event.data.transcript.path).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    calls = []
    real = observe_flow.redact_transcript
    monkeypatch.setattr(observe_flow, "redact_transcript", lambda t: calls.append(t.session_id) or real(t))
    recorder = RecordingOffline()

    observe_flow.collect_sessions(workspace, DAY)
    result = observe_flow.observe_day(workspace, DAY, llm=LLMClient(recorder, None), prompt=load_prompt("observer"),
                                      model="offline", redis_store=None, settings=env_settings())

    assert calls == ["s1"] and result.observed == 1 and len(recorder.prompts) == 1
    stored = sessions_path(workspace, DAY, emitted.event.data.dedupe_key).read_text(encoding="utf-8")
    for text, secret in SAMPLES:
        assert secret in source.read_text(encoding="utf-8")
        assert secret not in stored and secret not in recorder.prompts[0], text
