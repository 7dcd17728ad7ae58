"""`memory-pipeline bench pack --quality`: what the recall pack's sections hold, against labels.

The labelled transcripts (the shared ones and the Claude Code sessions of benchmarks/sessions)
go through the product's default path: the Observer, the ledger's typing and linking, then the
pack of every project as of the day after the last session. `labels/pack_lines.json` marks pack
lines good (a durable fact, decision, preference, rule or procedure, in one of the sections
listed) or bad (a change log, a bare command, a one-session detail, a stale value). A line
matches a label as a proposal does (reflect_quality.judge: the same opening words or MiniLM
cosine >= 0.85). Precision per section and overall: good / labelled; recall: the labelled facts
some pack line states / all good facts. Also counted: commands among PROCEDURES that the user did
not call the way to do something (lines starting "Ran …" or a bare command), and commitments open
over 30 days shown without ⚠️ STALE.
"""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from pathlib import Path

from benchmarks.observe_coding import transcript_path
from benchmarks.reflect_quality import ProposalLabel, ProposalView, judge

LABELS = Path(__file__).resolve().parent / "labels" / "pack_lines.json"
_LINE = re.compile(r"^- \[(?P<id>EVT-[\w-]+)\] (?P<text>.+?)(?: \((?P<entity>[\w.-]+)\))?"
                   r"(?P<note> — open, (?P<days>\d+) days \(P\d\)[^\n]*)?(?: ⚠️ STALE)?$")
_BARE_COMMAND = re.compile(r"^(?:ran|running|executed)\b|^`[^`]+`\.?$|^\$ ", re.IGNORECASE)


def load_pack_labels(path: Path = LABELS) -> tuple[list[str], list[ProposalLabel]]:
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    return list(raw["transcripts"]), [ProposalLabel(p["text"], bool(p["good"]), list(p.get("sections") or []),
                                                    p.get("why", ""), p.get("fact", "")) for p in raw["lines"]]


def pack_lines(text: str) -> list[tuple[str, str, int | None, bool]]:
    """(section key, event text, days open, marked stale) of every event line of a pack."""
    from memory_pipeline.stages.ledger.pack import SECTIONS

    headings = {section.heading: section.key for section in SECTIONS}
    found, section = [], ""
    for line in text.splitlines():
        section = headings.get(line, section)
        match = _LINE.match(line)
        if match and section:
            days = int(match.group("days")) if match.group("days") else None
            found.append((section, match.group("text"), days, "⚠️ STALE" in line))
    return found


def score_pack(lines, labels: list[ProposalLabel], embed) -> dict:
    views = [ProposalView(section, text) for section, text, _, _ in lines]
    verdicts = judge(views, labels, embed, with_labels=True)
    by_section: dict[str, dict] = {}
    for view, (verdict, _) in zip(views, verdicts):
        row = by_section.setdefault(view.section, {"lines": 0, "labelled": 0, "good": 0})
        row["lines"] += 1
        row["labelled"] += verdict is not None
        row["good"] += verdict is True
    for row in by_section.values():
        row["precision"] = round(row["good"] / row["labelled"], 3) if row["labelled"] else None
    facts = {lb.fact or lb.text for lb in labels if lb.good}
    stated = {label.fact or label.text for verdict, label in verdicts if verdict is True}
    labelled = [v for v, _ in verdicts if v is not None]
    return {"lines": len(views), "labelled": len(labelled), "good": sum(labelled),
            "precision": round(sum(labelled) / len(labelled), 3) if labelled else None,
            "recall": round(len(stated & facts) / len(facts), 3) if facts else None, "facts": len(facts),
            "sections": by_section,
            "commands_in_procedures": [t for s, t, _, _ in lines if s == "procedures" and _BARE_COMMAND.search(t)],
            "stale_commitments_unmarked": [t for s, t, days, stale in lines
                                           if s == "commitments" and days is not None and days > 30 and not stale],
            "bad_lines": [f"{v.section}: {v.text}" for v, (verdict, _) in zip(views, verdicts) if verdict is False],
            "unlabelled": [f"{v.section}: {v.text}" for v, (verdict, _) in zip(views, verdicts) if verdict is None]}


def bench_pack_quality(runner, embed, transcripts_dir: Path, labels_path: Path = LABELS) -> dict:
    from memory_pipeline.stages.ledger.pack import build_pack
    from memory_pipeline.stages.transcripts.parse import parse_transcript

    relatives, labels = load_pack_labels(labels_path)
    present = [r for r in relatives if transcript_path(r, transcripts_dir).exists()]
    observations = [runner.observe(parse_transcript(transcript_path(r, transcripts_dir)), Path(r).stem[:40])
                    for r in present]
    events = runner.ledger_events(observations, embed)
    today = max((date.fromisoformat(o.date) for o in observations), default=date.today()) + timedelta(days=1)
    pack = build_pack(events, today, project=None)
    return {"provider": runner.provider, "day": today.isoformat(), "transcripts": len(present), "events": len(events),
            "missing": sorted(set(relatives) - set(present)), "pack": pack.text} | score_pack(
        pack_lines(pack.text), labels, embed)
