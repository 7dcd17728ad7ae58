"""Redaction on its labelled set (labels/redaction.json): precision, recall and every miss.

A positive is caught when its secret is gone from `redact(text)`, and with it every word-like
piece of the secret (4+ characters) that the rest of the text does not hold: a database URL whose
password is only half removed is a miss. A negative is a false alarm when `redact` changes it at
all. Misses name the sample's shape, never print the secret.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from memory_pipeline.stages.redact import redact

LABELS = Path(__file__).parent / "labels" / "redaction.json"
_PIECE = re.compile(r"[A-Za-z0-9]{4,}")
_MARKER = re.compile(r"\[REDACTED:[a-z\-]+\]")


def load_labels(path: Path = LABELS) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def leaked(text: str, secret: str, out: str) -> bool:
    """Whether `out` (the redacted text) still holds the secret or a piece of it."""
    if secret in out:
        return True
    out = _MARKER.sub(" ", out)  # a marker's kind (github-token) is not a piece of the secret
    rest = text.replace(secret, " ")
    return any(out.count(piece) > rest.count(piece) for piece in _PIECE.findall(secret))


def _named(sample: dict) -> str:
    """A sample's shape, and the published rule it follows when it has one (`gitleaks:github-pat`)."""
    return f"{sample['shape']} ({sample['source']})" if sample.get("source") else sample["shape"]


def score(labels: dict) -> dict:
    """Precision and recall of `redact` on the set, with the shapes it missed or over-redacted."""
    started = time.perf_counter()
    misses = [_named(p) for p in labels["positives"] if leaked(p["text"], p["secret"], redact(p["text"]))]
    false_alarms = [_named(n) for n in labels["negatives"] if redact(n["text"]) != n["text"]]
    caught = len(labels["positives"]) - len(misses)
    return {
        "positives": len(labels["positives"]),
        "negatives": len(labels["negatives"]),
        "precision": round(caught / max(caught + len(false_alarms), 1), 3),
        "recall": round(caught / max(len(labels["positives"]), 1), 3),
        "missed": misses,
        "false_alarms": false_alarms,
        "ms_per_sample": round((time.perf_counter() - started) * 1000 / max(
            len(labels["positives"]) + len(labels["negatives"]), 1), 3),
    }


def bench_redaction(path: Path = LABELS) -> dict:
    return score(load_labels(path))
