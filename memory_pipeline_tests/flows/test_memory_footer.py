"""The briefing's last line: who observes, today's spend, and memory behind when the daemon is down."""

from __future__ import annotations

from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.flows.brief import build_brief
from memory_pipeline.flows.intake.emit import emit_session_event
from memory_pipeline.flows.status import memory_footer
from memory_pipeline.resources.workspace import Workspace

SAMPLES = Path(__file__).resolve().parents[2] / "memory_pipeline" / "samples"


def test_the_footer_names_the_observer_and_says_when_memory_is_behind(tmp_path: Path):
    settings = Settings.from_env({"MEMORY_WORKSPACE": str(tmp_path / "ws"), "MEMORY_PARTITIONS_START": "2023-01-01",
                                  "ANTHROPIC_API_KEY": "sk-ant-does-not-answer"})
    workspace = Workspace(settings.workspace).create()
    quiet = memory_footer(workspace, settings)
    assert quiet == "_Memory observed by offline-extractive-1 (offline), 0 tokens today._"
    for path in sorted(SAMPLES.glob("*.jsonl"))[:2]:
        assert emit_session_event(workspace, path, trigger="shutdown", use_transcript_time=True, settings=settings).path
    behind = memory_footer(workspace, settings)
    assert "memory is behind: the daemon is down, 2 events waiting" in behind
    text = build_brief(workspace, footer=behind).text
    assert text.rstrip().splitlines()[-1] == behind
