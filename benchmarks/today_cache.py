"""The former recall cache (today's engine in `bench engine`; the product dropped it with issue 28,
when recall moved onto the Edge shard's own query): the recall index as last loaded, kept beside
the store so a cold recall service started without opening it: `state/recall-cache/index.jsonl` (a first line with the generation it was read at,
then a line per point: its id and payload, text included) and the dense matrix in
`index-<digest>.npy`.

Opening local-mode Qdrant imports qdrant-client (1.3 s) and unpickles every point (1.9 s for 1,700
points here, with 2 cores busy); the cache loads in a fraction of that. It is only used while
the store's generation file still holds the generation it was read at: any write to the store
changes that, and the next load reads the store again and rewrites the cache. It holds nothing
the store does not (texts were redacted before indexing), and it is JSON Lines, so `scrub` and
`redact-check` reach it, line by line, like every other text file of the workspace.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
from pathlib import Path

import numpy as np

from memory_pipeline.resources.workspace import atomic_write_bytes, atomic_write_chunks

INDEX = "index.jsonl"
FORMAT = 1


def _matrix_name(generation: str) -> str:
    return f"index-{hashlib.sha256(generation.encode()).hexdigest()[:16]}.npy"


def save_columns(folder: Path, generation: str, ids: list[str], payloads: list[dict], dense: np.ndarray) -> None:
    """Write the matrix, then the JSON that names it (so a reader never pairs a new JSON with an
    old matrix); matrices of other generations are removed."""
    if not generation:
        return  # a store never written has nothing worth keeping
    name = _matrix_name(generation)
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(dense, dtype=np.float32), allow_pickle=False)
    atomic_write_bytes(folder / name, buffer.getvalue())
    head = json.dumps({"format": FORMAT, "generation": generation, "matrix": name, "points": len(ids)})
    lines = (json.dumps({"id": pid, "payload": payload}) + "\n" for pid, payload in zip(ids, payloads, strict=True))
    atomic_write_chunks(folder / INDEX, itertools.chain([head + "\n"], lines))
    for old in folder.glob("index-*.npy"):
        if old.name != name:
            old.unlink(missing_ok=True)


def cached_generation(folder: Path) -> str:
    """The generation the cache was read at ("" when there is none)."""
    try:
        with (folder / INDEX).open(encoding="utf-8") as handle:
            head = json.loads(handle.readline())
    except (OSError, ValueError):
        return ""
    return str(head.get("generation") or "") if isinstance(head, dict) and head.get("format") == FORMAT else ""


def load_columns(folder: Path, generation: str) -> tuple[list[str], list[dict], np.ndarray] | None:
    """The cached columns when they were read at `generation`; None when absent, stale or unreadable."""
    if not generation:
        return None
    try:
        with (folder / INDEX).open(encoding="utf-8") as handle:
            head = json.loads(handle.readline())
            if head.get("format") != FORMAT or head.get("generation") != generation:
                return None
            points = [json.loads(line) for line in handle]
        ids, payloads = [str(p["id"]) for p in points], [dict(p["payload"]) for p in points]
        dense = np.load(folder / str(head["matrix"]), allow_pickle=False)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if dense.ndim != 2 or len(ids) != head.get("points") or dense.shape[0] != len(ids):
        return None
    return ids, payloads, dense
