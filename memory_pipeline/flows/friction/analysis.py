"""Friction analysis of the 7 days ending at a day: the work behind the `friction` asset and command.

Loads the window's observations and the session windows they were made from, finds the signals
(corrections, command failures, failure facts), embeds and clusters them, keeps what recurs
across sessions, checks each finding against earlier fixes (the behaviour loop), has the LLM word
the fixes (offline: the drafts), stages them as f-YYYYMMDD-NNN-xxxx in REVIEW.md, and writes
friction/<day>.json and a `### 🧭 Friction` section in the daily log.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from memory_pipeline.flows.friction.staging import StagedFixes, stage_fixes
from memory_pipeline.flows.reflect import window
from memory_pipeline.models import LLMUsage, Observation, Proposal, Transcript
from memory_pipeline.ports import Completer, Embedder
from memory_pipeline.prompts import Prompt
from memory_pipeline.resources.files.daily_log import DailyLog, marker
from memory_pipeline.resources.files.ledger_files import LedgerFiles
from memory_pipeline.resources.files.memory_files import MemoryFiles
from memory_pipeline.resources.files.observation_files import load_observations, sessions_path
from memory_pipeline.resources.redis.proposals import ProposalStore
from memory_pipeline.resources.workspace import Workspace
from memory_pipeline.stages.friction.contradiction import Memory, ledger_memories, memory_lines
from memory_pipeline.stages.friction.findings import LOOP_REPEATS, Finding, find_friction, ranked, too_little_data
from memory_pipeline.stages.friction.instructions import REPEATS
from memory_pipeline.stages.friction.patterns import ONLY_WITHIN, window_patterns
from memory_pipeline.stages.friction.recurrence import escalate, match_fix
from memory_pipeline.stages.friction.signals import Signal, fact_signals, session_signals
from memory_pipeline.stages.friction.wording import Wording, parse_fixes, render_findings
from memory_pipeline.stages.ledger.state import LedgerState
from memory_pipeline.stages.untrusted import inline

WINDOW_DAYS = 7
# Fixes worded and staged by one run, the most severe first: a person reviews each one in REVIEW.md. A year of
# heavy history gave a week of 703 patterns; worded in one prompt (1.2 MB of findings) the offline answer broke
# the client's 200,000-character limit and the run failed, and a model would have been sent all of it.
MAX_WORDED = 20


class FrictionReport(BaseModel):
    """friction/<day>.json: what the analysis saw, found, skipped and staged."""

    day: str
    window: list[str]
    observations: int = 0
    sessions: int = 0
    signals: dict[str, int] = Field(default_factory=dict)
    skipped: str | None = None  # why nothing was analysed (too little data)
    findings: list[Finding] = Field(default_factory=list)
    staged: list[str] = Field(default_factory=list)
    not_staged: dict[str, str] = Field(default_factory=dict)  # finding pattern -> reason
    recurring: dict[str, str] = Field(default_factory=dict)  # approved fix id -> the pattern seen again
    usage: LLMUsage = Field(default_factory=LLMUsage)
    code_version: str = ""


def load_window(workspace: Workspace, day: str, days: int = WINDOW_DAYS) -> list[tuple[Observation, Transcript | None]]:
    """Every observation of the window with the session window it was made from (None when gone)."""
    found = []
    for observation_day in window(day, days):
        for observation in load_observations(workspace, observation_day):
            path = sessions_path(workspace, observation_day, observation.dedupe_key)
            transcript = Transcript.model_validate_json(path.read_text(encoding="utf-8")) if path.exists() else None
            found.append((observation, transcript))
    return found


def collect_signals(observed: list[tuple[Observation, Transcript | None]]) -> list[Signal]:
    """Signals of every session window, each message counted once, then the Observer's failure facts."""
    signals: list[Signal] = []
    seen: set[tuple[str, str, str]] = set()
    for observation, transcript in observed:
        for signal in session_signals(transcript, observation) if transcript else []:
            identity = (signal.kind, signal.session_id, signal.message_ids[-1])
            if identity not in seen:
                seen.add(identity)
                signals.append(signal)
    cited = {(session, mid) for _, session, mid in seen}
    for observation, _ in observed:
        signals += fact_signals(observation, cited)
    return signals


def check_recurrence(findings: list[Finding], fixes: ProposalStore, embedder: Embedder,
                     report: FrictionReport) -> tuple[list[Finding], list[Proposal]]:
    """New findings and escalated recurring ones, and the fixes this day already staged (a re-run,
    or a run killed after staging: they are this day's own, listed as staged, not "already
    proposed"); the others are noted in `report.not_staged`."""
    earlier = [p for p in fixes.all().values() if p.is_fix and p.pattern]
    if not findings or not earlier:
        return findings, []
    vectors = embedder.encode([f.pattern for f in findings] + [p.pattern for p in earlier])
    pairs = list(zip(earlier, vectors[len(findings):], strict=False))
    kept, own = [], []
    for finding, vector in zip(findings, vectors[: len(findings)], strict=False):
        match = match_fix(finding, vector, pairs)
        fix = fixes.get(match.fix_id) if match.fix_id else None
        if match.status == "pending" and fix is not None and fix.created == report.day:
            own.append(fix)
        elif match.status == "new":
            kept.append(finding)
        elif match.status == "recurring":
            report.recurring[match.fix_id] = finding.pattern
            kept.append(escalate(finding, fix) if fix is not None else finding)  # None: deleted since listed
        else:
            report.not_staged[finding.pattern] = {
                "pending": f"already proposed as {match.fix_id}", "rejected": f"rejected before as {match.fix_id}",
                "expired": f"proposed before as {match.fix_id} and left to expire",
                "fixed": f"fixed by {match.fix_id}; not seen since its approval"}[match.status]
    return kept, own


def word_fixes(findings: list[Finding], *, llm: Completer, prompt: Prompt, model: str, day: str,
               memory_md: str, report: FrictionReport) -> dict[int, Wording]:
    """The wording of each finding worth a fix, by its index in `findings`."""
    if not findings:
        return {}
    refs = [f"X{n}" for n in range(1, len(findings) + 1)]
    system, user = prompt.render(memory_md=memory_md or "(empty)", day=day, findings=render_findings(findings))
    wordings, usage = llm.complete(task="friction", model=model, system=system, prompt=user,
                                   validate=lambda text: parse_fixes(text, refs))
    report.usage = report.usage + usage
    for ref, finding in zip(refs, findings, strict=False):
        if ref not in wordings:
            report.not_staged[finding.pattern] = "the model judged it not worth a fix"
    return {refs.index(ref): wording for ref, wording in wordings.items()}


def friction_section(report: FrictionReport, staged: StagedFixes) -> str:
    lines = ["### 🧭 Friction", ""]
    if report.skipped:
        lines.append(f"*Skipped: {report.skipped}.*")
        lines += [f"- 🛠️ staged `{p.id}` (severity {p.severity:g}): {p.text}" for p in staged.staged]
    else:
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted(report.signals.items())) or "no signals"
        lines.append(f"**Window** {report.window[0]} → {report.day}: {report.observations} observations from "
                     f"{report.sessions} sessions; {counts}; {len(report.findings)} recurring patterns.")
        lines += [f"- 🛠️ staged `{p.id}` (severity {p.severity:g}): {p.text}" for p in staged.staged]
        lines += [f"- 🔁 `{fid}` did not stop: {inline(pattern)}" for fid, pattern in report.recurring.items()]
        lines += [f"- ⏭️ {inline(pattern)}: {why}" for pattern, why in report.not_staged.items()]
    return "\n".join(lines + ["", marker("friction", report.day, log_version(report))]) + "\n"


def log_version(report: FrictionReport) -> str:
    """Changes with the prompt and model and with what was found and staged (a re-run replaces the section)."""
    return f"{report.code_version}-{len(report.findings)}-{len(report.staged)}"


def memories(workspace: Workspace, memory_md: str) -> list[Memory]:
    """MEMORY.md's lines and the ledger's active events: what recent sessions may contradict."""
    events = LedgerFiles(workspace).read().events
    return memory_lines(memory_md) + ledger_memories(LedgerState.of(events).active())


def find_findings(workspace: Workspace, observed: list[tuple[Observation, Transcript | None]], *,
                  embedder: Embedder, memory_md: str, min_sessions: int, within_session_only: bool,
                  report: FrictionReport) -> list[Finding]:
    """Clustered signals and the other patterns, most severe first. A window too small for
    recurrence across sessions is still searched for what one session shows by itself."""
    signals = collect_signals(observed)
    for signal in signals:
        report.signals[signal.kind] = report.signals.get(signal.kind, 0) + 1
    # a command failure is compared by its error signature (paths, numbers blanked), the rest by text
    vectors = embedder.encode([s.key or s.text for s in signals]) if signals else []
    findings = find_friction(signals, vectors, min_sessions=ONLY_WITHIN if within_session_only else min_sessions)
    findings += window_patterns(observed, [] if within_session_only else memories(workspace, memory_md),
                                min_sessions=min_sessions, within_session_only=within_session_only)
    return ranked(findings)


def analyse_friction(workspace: Workspace, day: str, *, fixes: ProposalStore, embedder: Embedder, llm: Completer,
                     prompt: Prompt, model: str, min_observations: int, min_sessions: int, today: str,
                     now) -> tuple[FrictionReport, StagedFixes]:
    """Find, word and stage the friction of the 7 days ending at `day`."""
    observed = load_window(workspace, day)
    report = FrictionReport(day=day, window=window(day, WINDOW_DAYS), observations=len(observed),
                            sessions=len({o.session_id for o, _ in observed}), code_version=prompt.code_version(model))
    staged = StagedFixes()
    report.skipped = too_little_data(report.observations, report.sessions, min_observations, min_sessions)
    memory_md = MemoryFiles(workspace).read_memory()
    if observed:
        report.findings = find_findings(workspace, observed, embedder=embedder, memory_md=memory_md,
                                        min_sessions=min_sessions, within_session_only=report.skipped is not None,
                                        report=report)
    if report.skipped and report.findings:
        report.skipped += (f"; only patterns within one session were looked for (a command failing "
                           f"{LOOP_REPEATS} times, an instruction asked {REPEATS} times, recovery after several "
                           "compactions, a setting changed back and forth)")
    if report.skipped is None or report.findings:
        candidates, own = check_recurrence(report.findings, fixes, embedder, report)
        for finding in candidates[MAX_WORDED:]:
            report.not_staged[finding.pattern] = f"not among the run's {MAX_WORDED} most severe patterns"
        candidates = candidates[:MAX_WORDED]
        wordings = word_fixes(candidates, llm=llm, prompt=prompt, model=model, day=day, memory_md=memory_md,
                              report=report)
        staged = stage_fixes(workspace, fixes, [(candidates[i], w) for i, w in sorted(wordings.items())],
                             day=day, today=today, now=now)
        staged.staged = sorted(own + staged.staged, key=lambda p: p.id)
        report.staged = [p.id for p in staged.staged]
        report.not_staged.update(staged.skipped)
    workspace.write_json(workspace.friction_path(day), json.loads(report.model_dump_json()))
    DailyLog(workspace).upsert(day, friction_section(report, staged), kind="friction", key=day,
                               version=log_version(report))
    return report, staged


def load_friction(workspace: Workspace, day: str) -> FrictionReport | None:
    path = workspace.friction_path(day)
    return FrictionReport.model_validate_json(path.read_text(encoding="utf-8")) if path.exists() else None
