"""Repeated recovery after compaction, pure: the user re-orienting the agent after its context was
compacted.

After each compaction summary, the user's first RECOVERY_TURNS messages are read. One is a
recovery when it
- asks where things stand or says the agent forgot ("where were we?", "you still there?",
  "remember the plan", "re-read X", "I told you"), or
- re-explains a task: it repeats a message the user wrote before the compaction (most of its
  words again).
Paths it names that the compaction summary already named are recovery pointers that did not
prevent the re-asking. Reported when recoveries followed at least MIN_RECOVERIES compactions (several
compactions of one session, or one in each of several sessions); a single recovery is a one-off.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from memory_pipeline.models import Message, Observation, Transcript
from memory_pipeline.stages.friction.findings import IMPACT, PROJECT_FILE, Evidence, Finding
from memory_pipeline.stages.friction.signals import META_USER, clip

RECOVERY_TURNS = 4
MIN_RECOVERIES = 2
REPEAT_OVERLAP = 0.6
RECOVERY = re.compile(
    r"\b(?:where (?:were|are|was) we|where did we (?:leave|stop)|what were we (?:doing|working on)|"
    r"(?:are )?you still (?:there|with me)|lobot[oi]mi[sz]|you (?:forgot|forget|lost)|(?:lost|losing) (?:the )?context|"
    r"remember (?:the|that|what|to|we)|refresh (?:your|you r)|re-?read|read (?:it|that|them) again|"
    r"as i (?:said|told you)|i (?:already )?(?:told|said) (?:you|that)|we were (?:doing|working|in the middle)|"
    r"pick up (?:from )?where|you (?:haven'?t|have not|didn'?t) (?:read|look)|look (?:it |this )?up)",
    re.IGNORECASE)
_WORD = re.compile(r"[a-z][a-z0-9_.-]{2,}")
_PATH = re.compile(r"[\w.-]*/[\w./-]+|[\w-]+\.(?:md|ts|tsx|js|py|rs|go|json|toml|yaml|yml|txt)\b")


@dataclass(frozen=True)
class Recovery:
    session_id: str
    observation_id: str
    day: str
    summary_id: str
    message: Message
    why: str  # "re-orienting" or "re-explained"
    pointers: tuple[str, ...]  # paths named again that the summary already named
    cwd: str
    agent: str


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def repeats(text: str, earlier: list[set[str]]) -> bool:
    """Whether a message says most of what one earlier message said (the same task again)."""
    words = _words(text)
    return len(words) >= 5 and any(len(words & old) / len(words | old) >= REPEAT_OVERLAP for old in earlier if old)


def session_recoveries(transcript: Transcript, observation: Observation) -> list[Recovery]:
    """The recoveries after each compaction in one session window."""
    found: list[Recovery] = []
    earlier: list[set[str]] = []
    summary: Message | None = None
    turns = 0
    for message in transcript.messages:
        if message.is_compaction_summary:
            summary, turns = message, 0
            continue
        if message.role != "user" or not message.text.strip() or META_USER.match(message.text):
            continue
        if summary is not None and turns < RECOVERY_TURNS:
            turns += 1
            why = ("re-orienting" if RECOVERY.search(message.text) else
                   "re-explained" if repeats(message.text, earlier) else "")
            if why:
                named = {p.lstrip("@").rstrip(".") for p in _PATH.findall(message.text)}
                pointers = tuple(sorted(p for p in named if p.rsplit("/", 1)[-1] in summary.text))
                found.append(Recovery(observation.session_id, observation.id, observation.date, summary.id, message,
                                      why, pointers, transcript.cwd or "", transcript.format))
        earlier.append(_words(message.text))
    return found


def _at(recovery: Recovery) -> str:
    """The recovery message's own timestamp (ISO), or ""."""
    return recovery.message.timestamp.isoformat() if recovery.message.timestamp else ""


def recovery_finding(recoveries: list[Recovery], compactions: int) -> Finding:
    sessions = list(dict.fromkeys(r.session_id for r in recoveries))
    after = len({(r.session_id, r.summary_id) for r in recoveries})
    pointers = list(dict.fromkeys(p for r in recoveries for p in r.pointers))
    named = list(dict.fromkeys(p.lstrip("@") for r in recoveries for p in _PATH.findall(r.message.text)))[:4]
    evidence = [Evidence(day=_at(r)[:10] or r.day, time=_at(r)[11:16] or None, session_id=r.session_id,
                         observation_id=r.observation_id, message_ids=[r.summary_id, r.message.id],
                         quote=clip(r.message.text)) for r in recoveries]
    reread = f" and re-read {', '.join(f'`{p}`' for p in (pointers or named))}" if pointers or named else ""
    missed = (f"; the summary named {', '.join(f'`{p}`' for p in pointers)} yet the user had to point at "
              f"{'it' if len(pointers) == 1 else 'them'} again") if pointers else ""
    draft = (f"After a compaction, restate the task from the summary{reread} before going on: the user had to "
             f"re-orient the agent after {after} of {compactions} compactions in {len(sessions)} "
             f"session{'s' if len(sessions) != 1 else ''}{missed}.")
    folders, agents = {r.cwd for r in recoveries}, {r.agent for r in recoveries}
    target, folder = "MEMORY.md", ""
    if len(folders) == 1 and "" not in folders and len(agents) == 1 and next(iter(agents)) in PROJECT_FILE:
        target, folder = PROJECT_FILE[next(iter(agents))], next(iter(folders))
    return Finding(kind="compaction", pattern="the user re-orients the agent after a compaction", sessions=sessions,
                   occurrences=len(recoveries), impact=IMPACT["compaction"],
                   severity=max(after, len(sessions)) * IMPACT["compaction"], evidence=evidence, target=target,
                   target_dir=folder, title="Recover from compaction without being asked",
                   draft=draft)


def find_compaction_recovery(observed: list[tuple[Observation, Transcript | None]],
                             *, min_recoveries: int = MIN_RECOVERIES) -> list[Finding]:
    """One finding when recoveries followed `min_recoveries` compactions or more in the window."""
    recoveries: dict[tuple[str, str], Recovery] = {}
    compactions: dict[str, set[str]] = defaultdict(set)
    for observation, transcript in observed:
        if transcript is None:
            continue
        compactions[observation.session_id] |= {m.id for m in transcript.messages if m.is_compaction_summary}
        for recovery in session_recoveries(transcript, observation):
            recoveries.setdefault((recovery.session_id, recovery.message.id), recovery)
    ordered = sorted(recoveries.values(), key=lambda r: (_at(r) or r.day, r.session_id))
    if len({(r.session_id, r.summary_id) for r in ordered}) < min_recoveries:
        return []
    return [recovery_finding(ordered, sum(len(ids) for ids in compactions.values()))]
