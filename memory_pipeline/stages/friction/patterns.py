"""The friction patterns beside clustered signals, pure: configuration drift, memories contradicted
by what the user says now, instructions the user keeps repeating, and repeated recovery after
compaction.

`window_patterns` runs them over a window's observed session windows. With `within_session_only`
(the window is too small to tell recurrence across sessions) only what one session shows by itself
is kept: a setting changed back and forth, an instruction asked three times, recoveries after
several compactions.
"""

from __future__ import annotations

from memory_pipeline.models import Observation, Transcript
from memory_pipeline.stages.friction.compaction import find_compaction_recovery
from memory_pipeline.stages.friction.contradiction import Memory, find_contradictions
from memory_pipeline.stages.friction.drift import find_drift
from memory_pipeline.stages.friction.findings import Finding
from memory_pipeline.stages.friction.instructions import find_instructions
from memory_pipeline.stages.friction.said import window_statements

ONLY_WITHIN = 10**9  # a session count no window reaches: cross-session rules never fire


def window_patterns(observed: list[tuple[Observation, Transcript | None]], memories: list[Memory], *,
                    min_sessions: int, within_session_only: bool = False) -> list[Finding]:
    statements = window_statements(observed)
    sessions = ONLY_WITHIN if within_session_only else min_sessions
    findings = find_drift(statements, min_sessions=max(2, sessions))
    if not within_session_only:
        findings += find_contradictions(memories, statements, min_sessions=min_sessions)
    findings += find_instructions(statements, min_sessions=max(2, sessions))
    findings += find_compaction_recovery(observed)
    return findings
