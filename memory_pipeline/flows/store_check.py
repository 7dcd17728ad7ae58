"""`ingest`'s look at the vector store before its runs: a store lost or damaged is rebuilt from the
workspace's own files, and ingest says so.

What was indexed is on disk: each day's manifest per tier (`state/index/<tier>/<day>.json`, the ids the
index steps wrote, made from the day's session files and observations). A shard that is missing, that
the engine cannot load, whose payload table SQLite finds damaged (or is gone), or that holds fewer of a
day's points than its manifest names (a damaged page the engine skips, points lost) has those days
indexed again from the sessions and observations on disk: no Observer call, only the embedding model.
A shard that cannot be loaded is first moved aside (`vectors.damaged-<time>/`), never deleted.
Without this, `ingest` said ok (nothing pending) while recall of earlier days found nothing, and only
`ingest --date` day by day brought it back.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from memory_pipeline.config import Settings
from memory_pipeline.errors import MemoryPipelineError
from memory_pipeline.ports import Embedder
from memory_pipeline.resources.embedding.onnx_embedder import embedder_for
from memory_pipeline.resources.run_output import captured_output
from memory_pipeline.resources.vectors.edge_store import EdgeStore
from memory_pipeline.resources.workspace import Workspace

MESSAGE_TIERS = ("messages", "passages")  # indexed together, from the day's sessions
OBSERVATION_TIERS = ("observations",)  # from the day's observations


@dataclass
class StoreRepair:
    """What the check found and what it did."""

    problems: list[str] = field(default_factory=list)
    days: list[str] = field(default_factory=list)
    embedded: int = 0
    set_aside: str | None = None

    def line(self) -> str:
        days = ", ".join(self.days[:6]) + (f" and {len(self.days) - 6} more" if len(self.days) > 6 else "")
        aside = f"; the damaged files kept in {self.set_aside}" if self.set_aside else ""
        done = (f"rebuilt {len(self.days)} day(s) ({days}) from the sessions and observations on disk: "
                f"{self.embedded} points embedded again" if self.days else "nothing on disk to rebuild it from")
        return f"vector store: {'; '.join(self.problems)}; {done}{aside}"


def indexed_counts(manifests: Path) -> dict[tuple[str, str], int]:
    """(tier, day) → how many points the index steps wrote (their manifests; an unreadable one counts 0)."""
    found = {}
    for path in sorted(manifests.glob("*/*.json")):
        try:
            found[(path.parent.name, path.stem)] = len(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            continue
    return found


def day_filter(tier: str, day: str) -> dict:
    return {"tier": tier, "date_gte": day, "date_lt": (date.fromisoformat(day) + timedelta(days=1)).isoformat()}


def short_days(store, counts: dict[tuple[str, str], int]) -> dict[str, set[str]]:
    """day → the tiers of which the store holds fewer points than the manifest names."""
    if store.count() >= sum(counts.values()):
        return {}
    short: dict[str, set[str]] = {}
    for (tier, day), expected in counts.items():
        if expected and store.count(day_filter(tier, day)) < expected:
            short.setdefault(day, set()).add(tier)
    return short


def check_store(workspace: Workspace, settings: Settings) -> StoreRepair | None:
    """Find a lost or damaged store and rebuild what is missing (see the module); None when it is whole."""
    from memory_pipeline.flows.recall.engine import open_store  # noqa: PLC0415 — numpy and the stores

    counts = indexed_counts(workspace.state_path("index"))
    if not any(counts.values()):
        return None  # nothing was ever indexed: no model loaded, no shard opened
    embedder = embedder_for(settings.embedding_model, settings)
    store = open_store(workspace, settings, embedder.dimension)
    repair = StoreRepair()
    if isinstance(store, EdgeStore):
        if not store.exists():
            repair.problems.append(f"the shard {store.path} is missing")
        elif damage := store.damage():
            repair.problems.append(f"the shard is damaged ({damage})")
            repair.set_aside = str(store.set_aside())
    short = short_days(store, counts)
    if short and not repair.problems:
        points = sum(counts[(tier, day)] for day, tiers in short.items() for tier in tiers)
        repair.problems.append(f"the shard holds fewer points than were indexed ({points} expected on "
                               f"{len(short)} day(s))")
    if not repair.problems:
        return None
    repair.days = sorted(short)
    repair.embedded = rebuild_days(workspace, settings, store, embedder, short)
    return repair


def rebuild_days(workspace: Workspace, settings: Settings, store, embedder: Embedder,
                 short: dict[str, set[str]]) -> int:
    """Index the short tiers of each day again from the files on disk; the points embedded."""
    from memory_pipeline.flows.index.messages import index_message_day  # noqa: PLC0415 — qdrant-client and numpy, only to rebuild
    from memory_pipeline.flows.index.observations import index_observation_day  # noqa: PLC0415 — qdrant-client and numpy, only to rebuild

    embedded = 0
    with store.holding():
        for day in sorted(short):
            if short[day] & set(MESSAGE_TIERS):
                embedded += index_message_day(workspace, settings, store, embedder, day).embedded
            if short[day] & set(OBSERVATION_TIERS):
                embedded += index_observation_day(workspace, settings, store, embedder, day).embedded
    return embedded


def store_checked(workspace: Workspace, settings: Settings, who: str = "ingest") -> str | None:
    """The vector store checked, and what was missing rebuilt: the line that says so, also appended to the
    workspace's run log (`state/dagster-output.log`) under `who` (`ingest`, or the nightly `maintenance`
    the daemon runs, so a store lost while only the daemon works is rebuilt overnight); None when whole."""
    try:
        repair = check_store(workspace, settings)
        line = repair.line() if repair else None
    except MemoryPipelineError as exc:  # held by another process, another model: each run's step says it too
        line = f"vector store not checked: {exc}"
    if line:
        with captured_output(workspace.state_path("dagster_output"), f"{who}: vector store check"):
            print(line, file=sys.stderr)
    return line
