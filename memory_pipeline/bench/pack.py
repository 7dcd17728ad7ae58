"""`memory-pipeline bench pack`: recall pack build time and peak memory for ledgers of N events.

Each size runs in a fresh Python process (so its peak RSS is its own) on a generated ledger of
N events over 365 days (all types and priorities, 2% superseding, commitments opened and closed,
one entity per 50 events). Timed: the pack build (`memory-pipeline pack`: read and parse the
ledger, integrity checks, the pack, pack.md and the report written), its parts alone, and the
knowledge pages (which the `recall_pack` asset also writes) on their own. Target: 100k under 5 s,
under 500 MB.
"""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, time as clock, timedelta, timezone
from pathlib import Path

DAY = date(2026, 11, 23)
WORDS = ("deploy cache schema index queue worker token billing search upload retry timeout postgres redis "
         "migration release review branch config secret budget latency").split()


def synthetic_events(n: int, seed: int = 17) -> list[str]:
    """N ledger lines, ids sequential per day, in time order."""
    from memory_pipeline.stages.ledger.model import EVENT_TYPES, PRIORITIES, LedgerEvent, event_id

    rng = random.Random(seed)
    days = sorted(DAY - timedelta(days=rng.randint(0, 364)) for _ in range(n))
    numbers: dict[date, int] = {}
    lines, ids, open_ids = [], [], []
    for k, day in enumerate(days):
        numbers[day] = numbers.get(day, 0) + 1
        kind = rng.choice(EVENT_TYPES)
        fields: dict = {}
        if ids and rng.random() < 0.02:
            fields["supersedes"] = rng.choice(ids[-500:])
        if kind == "commitment":
            if open_ids and rng.random() < 0.5:
                fields.update(status="closed", related=[open_ids.pop(rng.randrange(len(open_ids)))])
            else:
                fields["status"] = "open"
        ts = datetime.combine(day, clock(8), tzinfo=timezone.utc) + timedelta(seconds=numbers[day])
        event = LedgerEvent(ts=ts, id=event_id(day.isoformat(), numbers[day]), type=kind,
                            priority=rng.choices(PRIORITIES, weights=(1, 10, 45, 44))[0],
                            content=" ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 24))) + f" #{k}",
                            entity=f"entity_{rng.randint(0, max(1, n // 50))}", source=f"memory/{day}.md",
                            session=f"s{k // 20}", **fields)
        if fields.get("status") == "open":
            open_ids.append(event.id)
        ids.append(event.id)
        lines.append(event.line())
    return lines


def measure(n: int) -> dict:
    """In this process: build the ledger, then time the pack build. Returns the figures."""
    from memory_pipeline.flows.ledger import after_write
    from memory_pipeline.flows.pack import build_packs
    from memory_pipeline.resources.ledger_files import LedgerFiles
    from memory_pipeline.resources.workspace import Workspace, atomic_write_text
    from memory_pipeline.stages.ledger.knowledge import knowledge_pages
    from memory_pipeline.stages.ledger.pack import build_pack

    with tempfile.TemporaryDirectory(prefix="mp-bench-pack-") as tmp:
        workspace = Workspace(Path(tmp) / "ws").create()
        atomic_write_text(workspace.ledger_path, "\n".join(synthetic_events(n)) + "\n")
        files = LedgerFiles(workspace)
        with files.locked():
            after_write(files)  # the index and checkpoint, as the ledger asset leaves them
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        started = time.perf_counter()
        build = build_packs(workspace, DAY.isoformat(), knowledge=False)
        total = time.perf_counter() - started
        peak_pack = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        t0 = time.perf_counter()
        parsed = files.read()
        t1 = time.perf_counter()
        pack = build_pack(parsed.events, DAY)
        t2 = time.perf_counter()
        pages = files.write_knowledge(knowledge_pages(parsed.events, DAY))
        t3 = time.perf_counter()
        return {"events": n, "pack_build_s": round(total, 3), "parse_s": round(t1 - t0, 3),
                "pack_only_s": round(t2 - t1, 3), "knowledge_s": round(t3 - t2, 3), "knowledge_pages": len(pages),
                "pack_words": pack.words, "integrity_passed": build.report.passed,
                "peak_rss_pack_mb": round(peak_pack),
                "ledger_mb": round(workspace.ledger_path.stat().st_size / 2**20, 1),
                "rss_before_build_mb": round(rss_before), 
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def bench_pack(sizes: tuple[int, ...] = (1_000, 10_000, 100_000)) -> list[dict]:
    """Each size in its own process; returns one row of figures per size."""
    rows = []
    for n in sizes:
        code = f"import json; from memory_pipeline.bench.pack import measure; print(json.dumps(measure({int(n)})))"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            rows.append({"events": n, "error": done.stderr.strip().splitlines()[-1:]})
            continue
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return rows
