"""Seeded session windows for the friction pattern tests: observations with the transcripts they
were made from, built in memory (user turns, compaction summaries, Observer facts)."""

from __future__ import annotations

from datetime import datetime, timezone

from memory_pipeline.models import Fact, Message, Observation, Segment, Transcript
from memory_pipeline_tests.support.review_fixtures import observation


def window(session: str, day: str, turns: list[str], *, cwd: str = "/work/app", fmt: str = "claude-code",
           facts: list[Fact] | None = None) -> tuple[Observation, Transcript]:
    """One observed session window: each turn is a user message, or "COMPACT: summary" for a compaction."""
    messages = []
    for number, turn in enumerate(turns, start=1):
        at = datetime.fromisoformat(f"{day}T09:{number:02d}:00").replace(tzinfo=timezone.utc)
        if turn.startswith("COMPACT: "):
            messages.append(Message(id=f"{session}-m{number}", role="system", timestamp=at,
                                    text=turn.removeprefix("COMPACT: "), is_compaction_summary=True))
        else:
            messages.append(Message(id=f"{session}-m{number}", role="user", timestamp=at, text=turn))
            messages.append(Message(id=f"{session}-a{number}", role="assistant", timestamp=at, text="On it."))
    seen = observation(day, session, [Segment(title="work", facts=facts or [])])
    return seen, Transcript(format=fmt, session_id=session, cwd=cwd, messages=messages)


def user_fact(text: str, message_id: str) -> Fact:
    return Fact(priority="high", time="10:00", text=text, source_message_ids=[message_id], source_roles=["user"])
