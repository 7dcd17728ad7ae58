"""What the user said in the window, pure: the statements drift and contradiction checks compare.

A statement is one sentence of a user message (tool output and fetched pages are data, not what
the user said), or an Observer fact that cites a user message when the window has no transcript
for it. Each keeps where it came from, so a finding cites evidence that exists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory_pipeline.models import Observation, Transcript
from memory_pipeline.stages.friction.findings import Evidence
from memory_pipeline.stages.friction.signals import META_USER, clip

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_FACT_PREFIX = re.compile(r"^(?:User (?:stated|decided|corrected the agent|reported|asked)|Decision|Fact)\s*:\s*",
                          re.IGNORECASE)


@dataclass(frozen=True)
class Said:
    text: str  # one sentence
    session_id: str
    observation_id: str
    day: str
    time: str | None
    message_id: str
    cwd: str = ""
    agent: str = ""
    at: str = ""  # the message's own timestamp (ISO), when it has one: a session may cross midnight
    project: str = ""  # the session's project: a setting differing between two projects is not drift

    @property
    def when(self) -> tuple[str, str]:
        return (self.at, "") if self.at else (self.day, self.time or "")

    def evidence(self, quote: str | None = None) -> Evidence:
        return Evidence(day=self.at[:10] if self.at else self.day, time=self.time, session_id=self.session_id,
                        observation_id=self.observation_id, message_ids=[self.message_id],
                        quote=clip(quote or self.text))


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if len(s.split()) >= 2]


def user_statements(transcript: Transcript, observation: Observation) -> list[Said]:
    """Every sentence of the user's own messages in a session window (compaction summaries aside)."""
    found = []
    for message in transcript.messages:
        if message.role != "user" or message.relayed or message.is_compaction_summary or META_USER.match(message.text):
            continue
        time = message.timestamp.strftime("%H:%M") if message.timestamp else None
        for sentence in sentences(message.text[:2000]):
            found.append(Said(text=sentence, session_id=observation.session_id, observation_id=observation.id,
                              day=observation.date, time=time, message_id=message.id, cwd=transcript.cwd or "",
                              agent=transcript.format, at=message.timestamp.isoformat() if message.timestamp else "",
                              project=observation.project))
    return found


def fact_statements(observation: Observation) -> list[Said]:
    """The Observer's facts that cite the user (used when the session window itself is gone)."""
    found = []
    for fact in observation.facts:
        if "user" not in fact.source_roles or not fact.source_message_ids:
            continue
        found.append(Said(text=_FACT_PREFIX.sub("", fact.text).strip(' "“”'), session_id=observation.session_id,
                          observation_id=observation.id, day=observation.date, time=fact.time,
                          message_id=fact.source_message_ids[0], project=observation.project))
    return found


def window_statements(observed: list[tuple[Observation, Transcript | None]]) -> list[Said]:
    """The window's statements in time order, each message's sentence once."""
    found, seen = [], set()
    for observation, transcript in observed:
        for said in user_statements(transcript, observation) if transcript else fact_statements(observation):
            identity = (said.session_id, said.message_id, said.text)
            if identity not in seen:
                seen.add(identity)
                found.append(said)
    return sorted(found, key=lambda s: s.when)
