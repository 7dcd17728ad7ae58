"""Observer precision and recall on coding transcripts against a hand-labelled set of sentences.

`labels/observer_coding.json` lists sentences of the shared MIT transcripts, each marked durable
(a decision with its reason, a root cause, a fix, a preference, a correction, a state change) or
not (a question, a greeting, a task request, running commentary, a status line, a one-session
detail). A fact keeps a labelled sentence when it cites the sentence's message and says the same
thing: it contains the sentence's opening words, or MiniLM cosine >= KEEP_COSINE (so a model's
paraphrase counts too). Precision: the share of facts keeping a labelled sentence that keep a
durable one; strict precision counts every fact, so facts that keep no labelled sentence (edited
files, commands: what belongs in the narrative) count wrong. Recall: the share of durable
sentences kept.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from benchmarks.observe_quality import FactView

LABELS = Path(__file__).resolve().parent / "labels" / "observer_coding.json"
# Claude Code sessions modelled on issue 26 (support/coding_sessions.py records them with the real
# binary); a label path `bench:NAME` is a file here, any other is under the shared transcripts.
SESSIONS_DIR = Path(__file__).resolve().parent / "sessions"
KEEP_COSINE = 0.55
PREFIX_CHARS = 48


@dataclass
class LabelledSentence:
    message_id: str
    text: str
    durable: bool


def _flat(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def load_labels(path: Path = LABELS) -> dict[str, list[LabelledSentence]]:
    """fixture path (relative to the shared transcripts folder) → its labelled sentences."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    return {f["path"]: [LabelledSentence(s["message_id"], s["text"], bool(s["durable"])) for s in f["sentences"]]
            for f in raw["fixtures"]}


def _keeps(fact: FactView, fact_vector, sentence: LabelledSentence, vector) -> bool:
    if sentence.message_id not in fact.source_ids:
        return False
    return _flat(sentence.text)[:PREFIX_CHARS] in _flat(fact.text) or sum(a * b for a, b in zip(fact_vector, vector)) >= KEEP_COSINE


def keep_matrix(facts: list[FactView], labels: list[LabelledSentence], embed) -> list[list[bool]]:
    """keeps[i][j]: fact i keeps labelled sentence j."""
    if not facts or not labels:
        return [[False] * len(labels) for _ in facts]
    vectors = embed([f.text for f in facts] + [s.text for s in labels])
    fact_vectors, label_vectors = vectors[: len(facts)], vectors[len(facts):]
    return [[_keeps(f, fv, s, sv) for s, sv in zip(labels, label_vectors)] for f, fv in zip(facts, fact_vectors)]


def score_fixture(facts: list[FactView], labels: list[LabelledSentence], embed) -> dict:
    """Precision counts facts (a fact keeping any durable sentence is right); recall counts sentences."""
    keeps = keep_matrix(facts, labels, embed)
    labelled = [row for row in keeps if any(row)]
    right = [row for row in labelled if any(k and s.durable for k, s in zip(row, labels))]
    kept = [any(row[j] for row in keeps) for j in range(len(labels))]
    return {"facts": len(facts), "labelled_facts": len(labelled), "unlabelled_facts": len(facts) - len(labelled),
            "true_positives": len(right), "sentences": len(labels), "durable": sum(s.durable for s in labels),
            "durable_kept": sum(k and s.durable for k, s in zip(kept, labels))}


def _ratios(counts: dict) -> dict:
    ratio = lambda a, b: round(a / b, 3) if b else None  # noqa: E731
    return counts | {"precision": ratio(counts["true_positives"], counts["labelled_facts"]),
                     "strict_precision": ratio(counts["true_positives"], counts["facts"]),
                     "recall": ratio(counts["durable_kept"], counts["durable"])}


def transcript_path(relative: str, transcripts_dir: Path) -> Path:
    """A label's transcript: `bench:NAME` under benchmarks/sessions, any other under the shared folder."""
    return SESSIONS_DIR / relative.removeprefix("bench:") if relative.startswith("bench:") else transcripts_dir / relative


def bench_observe_coding(runner, embed, transcripts_dir: Path, labels_path: Path = LABELS) -> dict:
    """Per fixture and overall precision/recall of the configured Observer against the labels."""
    from memory_pipeline.stages.transcripts.parse import parse_transcript

    result: dict = {"fixtures": {}}
    total: dict[str, int] = {}
    for relative, labels in load_labels(labels_path).items():
        path = transcript_path(relative, transcripts_dir)
        if not path.exists():
            result["fixtures"][relative] = {"skipped": f"missing {path}"}
            continue
        observation = runner.observe(parse_transcript(path), Path(relative).stem[:40])
        facts = [FactView(f.text, f.source_message_ids) for s in observation.segments for f in s.facts]
        counts = score_fixture(facts, labels, embed)
        result["fixtures"][relative] = _ratios(counts)
        total = {k: total.get(k, 0) + v for k, v in counts.items()}
    result["overall"] = _ratios(total) if total else {}
    return result
