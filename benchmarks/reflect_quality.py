"""Reflector precision on the shared coding transcripts against a hand-labelled set of proposals.

Each shared transcript is observed as one session and the observations are reflected on once,
with the configured LLM (offline by default), through the same stage functions the ingest and
reflect flows call. `labels/reflector_proposals.json` marks proposals good (a durable,
self-contained statement a future session can act on, in one of the sections listed) or bad (a
quote, a status line, an error line, a one-session detail, a merge of unrelated facts). A
proposal matches a label when it opens with the label's words or says the same thing (MiniLM
cosine >= MATCH_COSINE). Precision is good / labelled; unlabelled proposals are listed so a
reviewer can label them, never counted as good.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

LABELS = Path(__file__).resolve().parent / "labels" / "reflector_proposals.json"
MATCH_COSINE = 0.85
PREFIX_CHARS = 48


@dataclass
class ProposalLabel:
    text: str
    good: bool
    sections: list[str]
    why: str = ""


@dataclass
class ProposalView:
    section: str
    text: str


def _flat(text: str) -> str:
    text = re.sub(r"^\[quoted\]\s*", "", text.strip(), flags=re.IGNORECASE)
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def load_proposal_labels(path: Path = LABELS) -> tuple[list[str], list[ProposalLabel]]:
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    labels = [ProposalLabel(p["text"], bool(p["good"]), list(p.get("sections") or []), p.get("why", ""))
              for p in raw["proposals"]]
    return list(raw["transcripts"]), labels


def _by_words(flat: str, labels: list[ProposalLabel]) -> ProposalLabel | None:
    """The label with the same words, else the closest in length among those opening the same way."""
    exact = next((lb for lb in labels if _flat(lb.text) == flat), None)
    if exact is not None:
        return exact
    opening = [lb for lb in labels if _flat(lb.text)[:PREFIX_CHARS] == flat[:PREFIX_CHARS]]
    return min(opening, key=lambda lb: abs(len(_flat(lb.text)) - len(flat)), default=None)


def judge(proposals: list[ProposalView], labels: list[ProposalLabel], embed) -> list[bool | None]:
    """Per proposal: True (good, in an allowed section), False (bad), None (no label matches)."""
    if not proposals:
        return []
    vectors = embed([p.text for p in proposals] + [label.text for label in labels]) if labels else []
    verdicts: list[bool | None] = []
    for i, proposal in enumerate(proposals):
        flat = _flat(proposal.text)
        label = _by_words(flat, labels)
        if label is None and labels:
            scores = [sum(a * b for a, b in zip(vectors[i], vectors[len(proposals) + j])) for j in range(len(labels))]
            best = max(range(len(labels)), key=scores.__getitem__)
            label = labels[best] if scores[best] >= MATCH_COSINE else None
        verdicts.append(None if label is None else label.good and proposal.section in label.sections)
    return verdicts


def score_proposals(proposals: list[ProposalView], labels: list[ProposalLabel], sessions: int, embed) -> dict:
    verdicts = judge(proposals, labels, embed)
    labelled = [v for v in verdicts if v is not None]
    good = sum(1 for v in labelled if v)
    return {"sessions": sessions, "proposals": len(proposals), "labelled": len(labelled), "good": good,
            "precision": round(good / len(labelled), 3) if labelled else None,
            "useful_per_10_sessions": round(10 * good / sessions, 2) if sessions else None,
            "good_lines": [f"{p.section}: {p.text}" for p, v in zip(proposals, verdicts) if v is True],
            "unlabelled": [f"{p.section}: {p.text}" for p, v in zip(proposals, verdicts) if v is None],
            "bad": [f"{p.section}: {p.text}" for p, v in zip(proposals, verdicts) if v is False]}


def bench_reflect_quality(runner, embed, transcripts_dir: Path, labels_path: Path = LABELS) -> dict:
    from memory_pipeline.stages.transcripts.parse import parse_transcript

    relatives, labels = load_proposal_labels(labels_path)
    present = [r for r in relatives if (transcripts_dir / r).exists()]
    observations = [runner.observe(parse_transcript(transcripts_dir / r), Path(r).stem[:40]) for r in present]
    proposals = [ProposalView(p.section, p.text) for p in runner.reflect(observations)] if observations else []
    return {"provider": runner.provider, "missing": sorted(set(relatives) - set(present))} | score_proposals(
        proposals, labels, len(present), embed)
