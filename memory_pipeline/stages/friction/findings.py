"""Findings, pure: clusters of signals that recur across sessions, scored, with a drafted fix.

Severity is frequency × impact: the sessions a pattern recurred in × the friction one occurrence
costs (IMPACT: a user repeating a correction costs most, a command failing the same way less, a
failure the Observer noted least). A cluster seen in fewer than `min_sessions` sessions is a
one-off and is not reported, unless it is a command failing the same way LOOP_REPEATS times or
more in one session (a loop the agent did not get out of). A correction tied to a failed command
(signals.tie_correction) and the failures of that program elsewhere are one finding, worded as the
correction's lesson ("Use uv (`uv sync`, `uv run pytest`), not pip").
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, Field

from memory_pipeline.models import FixTarget
from memory_pipeline.stages.friction.cluster import cluster_signals
from memory_pipeline.stages.friction.lesson import program
from memory_pipeline.stages.friction.signals import Signal, clip
from memory_pipeline.stages.untrusted import working_folder

IMPACT = {"correction": 3.0, "contradiction": 2.5, "command-failure": 2.0, "drift": 2.0, "compaction": 2.0,
          "instruction": 2.5, "failure": 1.5}
LOOP_REPEATS = 3
PROJECT_FILE: dict[str, FixTarget] = {"claude-code": "CLAUDE.md", "codex": "AGENTS.md", "pi": "AGENTS.md"}


class Evidence(BaseModel):
    day: str
    time: str | None = None
    session_id: str
    observation_id: str
    message_ids: list[str] = Field(default_factory=list)
    quote: str

    def line(self) -> str:
        when = f"{self.day} {self.time}" if self.time else self.day
        messages = ", ".join(self.message_ids[:3]) or "none"
        return (f"{when} session `{self.session_id}` · observation `{self.observation_id[:8]}` · "
                f"messages {messages} · “{clip(self.quote, 120)}”")


class Finding(BaseModel):
    kind: str
    pattern: str  # the representative text: what recurred
    sessions: list[str]
    occurrences: int
    impact: float
    severity: float
    evidence: list[Evidence]
    command: str = ""
    then: str = ""  # command failures: what worked after the failure, most often
    lesson: str = ""  # a correction tied to a failed command: what to do instead
    target: FixTarget = "MEMORY.md"
    section: str = "Lessons"
    target_dir: str = ""
    title: str = ""
    draft: str = ""  # the offline wording of the fix
    recurring_of: str = ""

    @property
    def observation_ids(self) -> list[str]:
        return list(dict.fromkeys(e.observation_id for e in self.evidence))

    @property
    def message_ids(self) -> list[str]:
        return list(dict.fromkeys(m for e in self.evidence for m in e.message_ids))

    @property
    def days(self) -> list[str]:
        return sorted({e.day for e in self.evidence})


def ranked(findings: list[Finding]) -> list[Finding]:
    """Most severe first; a pattern found twice (the same kind and words) is one finding, its most severe: a week
    of a heavy year gave 703 findings of 137 patterns."""
    kept, seen = [], set()
    for finding in sorted(findings, key=lambda f: (-f.severity, -f.occurrences, f.pattern)):
        if (finding.kind, finding.pattern) not in seen:
            seen.add((finding.kind, finding.pattern))
            kept.append(finding)
    return kept


def too_little_data(observations: int, sessions: int, min_observations: int, min_sessions: int) -> str | None:
    """Why the window is too small to say anything about recurrence, or None when it is enough."""
    if observations < min_observations:
        return (f"only {observations} observation{'s' if observations != 1 else ''} in the window; friction "
                f"needs at least {min_observations} (MEMORY_FRICTION_MIN_OBSERVATIONS)")
    if sessions < min_sessions:
        return (f"only {sessions} session{'s' if sessions != 1 else ''} in the window; a pattern must recur in "
                f"{min_sessions} (MEMORY_FRICTION_MIN_SESSIONS)")
    return None


def representative(texts: list[str]) -> str:
    """The wording seen most often (case and spacing aside), the shortest on a tie."""
    counts = Counter(" ".join(t.lower().split()) for t in texts)
    best = min(texts, key=lambda t: (-counts[" ".join(t.lower().split())], len(t), t))
    return best


def choose_target(kind: str, members: list[Signal]) -> tuple[FixTarget, str, str]:
    """(target, MEMORY.md section, project folder): a command that fails in one project goes to that
    project's CLAUDE.md / AGENTS.md; corrections and everything else become MEMORY.md Lessons. A
    folder that is not an absolute plain path (untrusted.working_folder) is no project folder."""
    folders = {working_folder(s.cwd) or "" for s in members}
    agents = {s.agent for s in members}
    if kind == "command-failure" and len(folders) == 1 and "" not in folders and len(agents) == 1:
        agent = agents.pop()
        if agent in PROJECT_FILE:
            return PROJECT_FILE[agent], "Lessons", folders.pop()
    return "MEMORY.md", "Lessons", ""


def _sessions(n: int) -> str:
    return f"{n} session{'s' if n != 1 else ''}"


def draft_fix(finding: Finding) -> tuple[str, str]:
    """(title, change) for a finding, worded without a model. The change goes into an instruction
    file once approved, so it never quotes tool output (a command's error text stays in the
    evidence): only the user's words, the agent's commands and counts."""
    n = len(finding.sessions)
    if finding.kind == "correction":
        rule = finding.pattern.rstrip(".!")
        return clip(f"Lesson: {rule[:1].lower() + rule[1:]}", 70), f"{rule} (the user had to say this in {n} sessions)."
    if finding.kind == "command-failure":
        times = f"{finding.occurrences} times in {_sessions(n)}"
        if finding.then:
            return (clip(f"Use `{finding.then}`, not `{finding.command}`", 70),
                    f"`{finding.command}` fails here ({times}; the error is in the evidence); "
                    f"use `{finding.then}`, which worked right after it.")
        if " " not in finding.command:  # a tool, not a shell command
            return (clip(f"The `{finding.command}` tool keeps failing", 70),
                    f"The `{finding.command}` tool fails here ({times}); check what it is given (re-read the "
                    "file first) before calling it again.")
        return (clip(f"`{finding.command}` keeps failing", 70),
                f"`{finding.command}` fails here ({times}); find out why before running it again, and record "
                "the working command here.")
    return (clip(f"Recurring failure: {finding.pattern}", 70),
            f"Recurring failure in {n} sessions: {finding.pattern.rstrip('.')}. Check for this cause first.")


def lesson_draft(finding: Finding, corrected: int, ran_only: bool = False) -> tuple[str, str]:
    """(title, change) of a correction tied to a command the agent ran: its lesson, then why."""
    said = f"the user had to correct the agent in {_sessions(corrected)}"
    if ran_only and finding.command:
        failed = f"the agent ran `{finding.command}` and the user had to correct it in {_sessions(corrected)}"
    else:
        failed = f"`{finding.command}` failed here and {said}" if finding.command else said
    return clip(f"Lesson: {finding.lesson[:1].lower()}{finding.lesson[1:]}", 70), f"{finding.lesson} ({failed})."


def build_finding(members: list[Signal]) -> Finding:
    kind = members[0].kind
    sessions = list(dict.fromkeys(s.session_id for s in sorted(members, key=lambda s: (s.day, s.time or ""))))
    thens = Counter(s.then for s in members if s.then)
    lessons = Counter(s.lesson for s in members if s.lesson)
    target, section, folder = choose_target(kind, members)
    evidence = [Evidence(day=s.day, time=s.time, session_id=s.session_id, observation_id=s.observation_id,
                         message_ids=list(s.message_ids), quote=s.quote or s.text)
                for s in sorted(members, key=lambda s: (s.day, s.time or "", s.session_id))]
    lesson = lessons.most_common(1)[0][0] if lessons else ""
    finding = Finding(kind=kind, pattern=lesson or representative([s.text for s in members if s.kind == kind]),
                      sessions=sessions, occurrences=len(members), impact=IMPACT[kind],
                      severity=len(sessions) * IMPACT[kind], evidence=evidence, command=members[0].command,
                      then=thens.most_common(1)[0][0] if thens else "", target=target, section=section,
                      target_dir=folder, lesson=lesson)
    corrected = len({s.session_id for s in members if s.kind == "correction"})
    ran_only = all(s.ran for s in members if s.command)
    title, change = lesson_draft(finding, corrected, ran_only) if lesson else draft_fix(finding)
    return finding.model_copy(update={"title": title, "draft": change})


def tied_groups(signals: list[Signal], groups: list[list[int]]) -> list[list[int]]:
    """Clusters with each program's failures, and the other clusters of corrections of that program
    (the same correction in other words), moved into the first cluster of corrections tied to it."""
    corrected: dict[str, int] = {}
    for number, group in enumerate(groups):
        for i in group:
            if signals[i].kind == "correction" and signals[i].command_line:
                corrected.setdefault(program(signals[i].command_line), number)
    merged = [list(group) for group in groups]
    for number, group in enumerate(groups):
        first = signals[group[0]]
        tied = first.kind == "command-failure" or (first.kind == "correction" and bool(first.command_line))
        home = corrected.get(program(first.command_line)) if tied else None
        if home is not None and home != number:
            merged[home] += group
            merged[number] = []
    return [group for group in merged if group]


def find_friction(signals: list[Signal], vectors: list[list[float]], *, min_sessions: int = 2) -> list[Finding]:
    """Every cluster of signals seen in at least `min_sessions` sessions, most severe first."""
    findings = []
    for group in tied_groups(signals, cluster_signals(signals, vectors)):
        members = [signals[i] for i in group]
        looped = members[0].kind == "command-failure" and len(members) >= LOOP_REPEATS
        if len({s.session_id for s in members}) >= min_sessions or looped:
            findings.append(build_finding(members))
    return sorted(findings, key=lambda f: (-f.severity, -f.occurrences, f.pattern))
