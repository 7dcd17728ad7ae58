"""`memory-pipeline bench pack`: recall pack build time and peak memory for ledgers of N events.

Each size is measured in a fresh Python process (so its peak RSS is its own) on a generated ledger of
N events over 365 days (all types and priorities, 2% superseding, commitments opened and closed,
one entity per 50 events). Timed: the pack build (`memory-pipeline pack`: read and parse the
ledger, integrity checks, the pack, pack.md and the report written), its parts alone, and the
knowledge pages (which the `recall_pack` asset also writes) on their own. Wall and CPU seconds
both: on a shared machine the CPU time is the steadier figure. Target: 100k under 5 s,
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
from datetime import date, datetime, timedelta, timezone
from datetime import time as clock
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


def prepare(root: Path, n: int) -> Path:
    """A workspace with a generated ledger of `n` events, its index and checkpoint written."""
    from memory_pipeline.flows.ledger.events import after_write
    from memory_pipeline.resources.files.ledger_files import LedgerFiles
    from memory_pipeline.resources.workspace import Workspace, atomic_write_text

    workspace = Workspace(root / f"ws-{n}").create()
    atomic_write_text(workspace.ledger_path, "\n".join(synthetic_events(n)) + "\n")
    files = LedgerFiles(workspace)
    with files.locked():
        after_write(files)  # as the ledger asset leaves them
    return workspace.root


def measure(root: str) -> dict:
    """In a fresh process: build the packs of the workspace at `root`, then the parts alone."""
    from memory_pipeline.flows.ledger.pack import build_packs
    from memory_pipeline.resources.files.ledger_files import LedgerFiles
    from memory_pipeline.resources.workspace import Workspace
    from memory_pipeline.stages.ledger.knowledge import knowledge_pages
    from memory_pipeline.stages.ledger.pack import build_pack

    workspace = Workspace(root)
    files = LedgerFiles(workspace)
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    wall, cpu = time.perf_counter(), time.process_time()
    build = build_packs(workspace, DAY.isoformat(), knowledge=False)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.process_time()
    parsed = files.read()
    t1 = time.process_time()
    pack = build_pack(parsed.events, DAY)
    t2 = time.process_time()
    pages = files.write_knowledge(knowledge_pages(parsed.events, DAY))
    t3 = time.process_time()
    return {"events": len(parsed.events), "pack_build_s": round(wall, 3), "pack_build_cpu_s": round(cpu, 3),
            "peak_rss_mb": round(peak), "rss_after_imports_mb": round(baseline),
            "parse_cpu_s": round(t1 - t0, 3), "pack_only_cpu_s": round(t2 - t1, 3),
            "knowledge_cpu_s": round(t3 - t2, 3), "knowledge_pages": len(pages), "pack_words": pack.words,
            "integrity_passed": build.report.passed,
            "ledger_mb": round(workspace.ledger_path.stat().st_size / 2**20, 1)}


def _in_child(code: str) -> tuple[dict | None, str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return None, (done.stderr.strip().splitlines() or ["failed"])[-1]
    return json.loads(done.stdout.strip().splitlines()[-1]), ""


def bench_pack(sizes: tuple[int, ...] = (1_000, 10_000, 100_000)) -> list[dict]:
    """Each size's ledger generated in one fresh process and measured in another (a forked child
    would inherit its parent's peak RSS); one row of figures per size."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="mp-bench-pack-") as tmp:
        for n in sizes:
            root, error = _in_child("import json; from pathlib import Path; from benchmarks.pack import "
                                    f"prepare; print(json.dumps(str(prepare(Path({tmp!r}), {int(n)}))))")
            row, error = _in_child("import json; from benchmarks.pack import measure; "
                                   f"print(json.dumps(measure({root!r})))") if root else (None, error)
            rows.append(row or {"events": n, "error": error})
    return rows
