"""The part of a session a PreCompact hook snapshots."""

from __future__ import annotations

from memory_pipeline.models import Message, Transcript


def messages_since_last_compaction(transcript: Transcript) -> list[Message]:
    """The messages after the last compaction summary; all of them when there was no compaction."""
    last = max((i for i, m in enumerate(transcript.messages) if m.is_compaction_summary), default=-1)
    return list(transcript.messages[last + 1 :])
