"""The share of real sessions each observe rule observes (`memory-pipeline bench windows`).

Every real transcript at hand: the Claude Code, Codex and pi fixtures, the LongMemEval dev history
(chat sessions written as Claude Code transcripts) and the project's samples. Two cases:
- a session sent whole (a SessionEnd at the end of an interactive session, or `import`);
- one process per user turn (`claude -p --resume`): one window per turn. The old rule judged each
  turn by the session's user messages so far (observed from the 5th on, the first four never);
  now a short window waits and joins the next, and the last one is judged when the session is over.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from benchmarks.paths import ROOT, SHARED
from memory_pipeline.errors import BadInputError
from memory_pipeline.models import Message, Transcript, WindowWork
from memory_pipeline.stages.transcripts import parse_transcript
from memory_pipeline.stages.windows import decide_observing, window_work, worth_observing

OLD_MIN_USER_MESSAGES = 5
SOURCES = {
    "claude-code fixtures": SHARED / "fixtures" / "transcripts" / "claude-code",
    "codex fixtures": SHARED / "fixtures" / "transcripts" / "codex",
    "pi fixtures": SHARED / "fixtures" / "transcripts" / "pi",
    "lme-dev (chat)": SHARED / "bench" / "lme-dev" / "transcripts",
    "samples": ROOT / "memory_pipeline" / "samples",
}


@dataclass
class Tally:
    sessions: int = 0
    old_observed: int = 0
    new_observed: int = 0
    turns: int = 0
    old_turns_observed: int = 0
    new_turns_observed: int = 0


def sessions_in(folder: Path) -> Iterator[Transcript]:
    """Each session once (a migrated copy of the same session is skipped); subagent files left out."""
    seen: set[str] = set()
    for path in sorted(folder.rglob("*.jsonl")):
        if "subagents" in path.parts:
            continue
        try:
            transcript = parse_transcript(path)
        except BadInputError:
            continue
        if transcript.session_id not in seen:
            seen.add(transcript.session_id)
            yield transcript


def turns_of(messages: list[Message]) -> list[list[Message]]:
    """One window per user turn: a user message and everything up to the next one."""
    turns: list[list[Message]] = []
    for message in messages:
        if (message.role == "user" and message.text) or not turns:
            turns.append([])
        turns[-1].append(message)
    return turns


def per_turn(messages: list[Message]) -> tuple[int, int, int]:
    """(turns, turns the old rule observes, turns observed with waiting windows)."""
    turns = turns_of(messages)
    old = sum(1 for n in range(len(turns)) if n + 1 >= OLD_MIN_USER_MESSAGES)
    new, backlog, session = 0, [], WindowWork()
    for n, turn in enumerate(turns):
        backlog.append(turn)
        seen = [m for t in turns[: n + 1] for m in t]
        session = window_work(seen)
        over = n == len(turns) - 1
        decision = decide_observing("shutdown", window_work([m for t in backlog for m in t]), session, over)
        if decision != "waiting":
            new += len(backlog) if decision == "observed" else 0
            backlog = []
    return len(turns), old, new


def measure(sources: dict[str, Path] = SOURCES) -> dict[str, Tally]:
    tallies: dict[str, Tally] = {}
    for name, folder in sources.items():
        if not folder.is_dir():
            continue
        tally = tallies.setdefault(name, Tally())
        for transcript in sessions_in(folder):
            tally.sessions += 1
            tally.old_observed += transcript.user_message_count >= OLD_MIN_USER_MESSAGES
            tally.new_observed += worth_observing(window_work(transcript.messages))
            turns, old, new = per_turn(transcript.messages)
            tally.turns += turns
            tally.old_turns_observed += old
            tally.new_turns_observed += new
    return tallies


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f} %)" if whole else "-"


def figures(tallies: dict[str, Tally]) -> list[dict]:
    rows = []
    total = Tally()
    for name, t in [*tallies.items(), ("all", total)]:
        if name != "all":
            for field in t.__dataclass_fields__:
                setattr(total, field, getattr(total, field) + getattr(t, field))
        rows.append({"source": name, "sessions": t.sessions,
                     "observed_before": _share(t.old_observed, t.sessions),
                     "observed_after": _share(t.new_observed, t.sessions),
                     "turn_windows": t.turns,
                     "turns_observed_before": _share(t.old_turns_observed, t.turns),
                     "turns_observed_after": _share(t.new_turns_observed, t.turns)})
    return rows
