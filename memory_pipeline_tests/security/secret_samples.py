"""The labelled set for redaction, read from benchmarks/labels/redaction.json (which
`memory-pipeline bench redaction` scores): SECRETS as (text, secret), LOOK_ALIKES as texts that must
come through unchanged. Every secret there is made up; add a sample for every miss.
"""

from __future__ import annotations

from benchmarks.redaction import load_labels

LABELS = load_labels()
SECRETS: list[tuple[str, str]] = [(p["text"], p["secret"]) for p in LABELS["positives"]]
SHAPES: list[str] = [p["shape"] for p in LABELS["positives"]]
LOOK_ALIKES: list[str] = [n["text"] for n in LABELS["negatives"]]
