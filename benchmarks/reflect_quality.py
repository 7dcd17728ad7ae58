"""Reflector precision and recall on coding transcripts against a hand-labelled set of proposals.

Each labelled transcript (the shared ones, and `bench:NAME` for the Claude Code sessions of
benchmarks/sessions) is observed as one session and the observations are reflected on once,
with the configured LLM (offline by default), through the same stage functions the ingest and
reflect flows call. `labels/reflector_proposals.json` marks proposals good (a durable,
self-contained statement a future session can act on, in one of the sections listed) or bad (a
quote, a status line, an error line, a one-session detail, a merge of unrelated facts). A
proposal matches a label when it opens with the label's words or says the same thing (MiniLM
cosine >= MATCH_COSINE). Precision is good / labelled; unlabelled proposals are listed so a
reviewer can label them, never counted as good. Recall is the share of the good labels' facts
(labels saying one thing in other words share a `fact` key) that some good proposal states. A
change log (a label whose reason says "change log") among the proposals is counted apart.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from benchmarks.observe_coding import transcript_path

LABELS = Path(__file__).resolve().parent / "labels" / "reflector_proposals.json"
MATCH_COSINE = 0.85
PREFIX_CHARS = 48


@dataclass
class ProposalLabel:
    text: str
    good: bool
    sections: list[str]
    why: str = ""
    fact: str = ""  # labels saying the same fact in other words share it (recall counts facts)


@dataclass
class ProposalView:
    section: str
    text: str


def _flat(text: str) -> str:
    text = re.sub(r"^\[quoted\]\s*", "", text.strip(), flags=re.IGNORECASE)
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def load_proposal_labels(path: Path = LABELS) -> tuple[list[str], list[ProposalLabel]]:
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    labels = [ProposalLabel(p["text"], bool(p["good"]), list(p.get("sections") or []), p.get("why", ""),
                            p.get("fact", "")) for p in raw["proposals"]]
    return list(raw["transcripts"]), labels


def _by_words(flat: str, labels: list[ProposalLabel]) -> ProposalLabel | None:
    """The label with the same words, else the closest in length among those opening the same way."""
    exact = next((lb for lb in labels if _flat(lb.text) == flat), None)
    if exact is not None:
        return exact
    opening = [lb for lb in labels if _flat(lb.text)[:PREFIX_CHARS] == flat[:PREFIX_CHARS]]
    return min(opening, key=lambda lb: abs(len(_flat(lb.text)) - len(flat)), default=None)


def judge(proposals: list[ProposalView], labels: list[ProposalLabel], embed, with_labels: bool = False) -> list:
    """Per proposal: True (good, in an allowed section), False (bad), None (no label matches); with
    `with_labels`, (verdict, the matching label or None) pairs."""
    if not proposals:
        return []
    vectors = embed([p.text for p in proposals] + [label.text for label in labels]) if labels else []
    verdicts: list = []
    for i, proposal in enumerate(proposals):
        flat = _flat(proposal.text)
        label = _by_words(flat, labels)
        if label is None and labels:
            scores = [sum(a * b for a, b in zip(vectors[i], vectors[len(proposals) + j])) for j in range(len(labels))]
            best = max(range(len(labels)), key=scores.__getitem__)
            label = labels[best] if scores[best] >= MATCH_COSINE else None
        verdict = None if label is None else label.good and proposal.section in label.sections
        verdicts.append((verdict, label) if with_labels else verdict)
    return verdicts


def score_proposals(proposals: list[ProposalView], labels: list[ProposalLabel], sessions: int, embed) -> dict:
    judged = judge(proposals, labels, embed, with_labels=True)
    verdicts = [verdict for verdict, _ in judged]
    labelled = [v for v in verdicts if v is not None]
    good = sum(1 for v in labelled if v)
    facts = {lb.fact or lb.text for lb in labels if lb.good}
    stated = {label.fact or label.text for verdict, label in judged if verdict is True}
    return {"sessions": sessions, "proposals": len(proposals), "labelled": len(labelled), "good": good,
            "precision": round(good / len(labelled), 3) if labelled else None,
            "recall": round(len(stated & facts) / len(facts), 3) if facts else None, "facts": len(facts),
            "change_logs": sum(1 for v, label in judged if v is False and "change log" in label.why),
            "useful_per_10_sessions": round(10 * good / sessions, 2) if sessions else None,
            "good_lines": [f"{p.section}: {p.text}" for p, v in zip(proposals, verdicts) if v is True],
            "unlabelled": [f"{p.section}: {p.text}" for p, v in zip(proposals, verdicts) if v is None],
            "bad": [f"{p.section}: {p.text}" for p, v in zip(proposals, verdicts) if v is False]}


def bench_reflect_quality(runner, embed, transcripts_dir: Path, labels_path: Path = LABELS) -> dict:
    from memory_pipeline.stages.transcripts.parse import parse_transcript

    relatives, labels = load_proposal_labels(labels_path)
    present = [r for r in relatives if transcript_path(r, transcripts_dir).exists()]
    observations = [runner.observe(parse_transcript(transcript_path(r, transcripts_dir)), Path(r).stem[:40])
                    for r in present]
    proposals = [ProposalView(p.section, p.text) for p in runner.reflect(observations)] if observations else []
    return {"provider": runner.provider, "missing": sorted(set(relatives) - set(present))} | score_proposals(
        proposals, labels, len(present), embed)
