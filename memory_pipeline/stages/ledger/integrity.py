"""Memory integrity (seed 001): structural and semantic checks after every build.

Each check is a name, a verdict, a severity and the offending ids or lines; the report goes to
memory/integrity-report.json and into asset checks. A bad ledger line is a failed check with its
line number: nothing is skipped silently.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field

from memory_pipeline.stages.ledger.model import ParsedLedger, id_parts
from memory_pipeline.stages.ledger.pack import PackResult
from memory_pipeline.stages.ledger.state import LedgerState

SHOWN = 20  # offending items kept per check


@dataclass
class Check:
    name: str
    passed: bool
    severity: str = "error"  # "error" | "warn"
    found: list = field(default_factory=list)
    count: int = 0


@dataclass
class IntegrityReport:
    checks: list[Check]

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks if c.severity == "error")

    def failures(self, severity: str | None = None) -> list[Check]:
        return [c for c in self.checks if not c.passed and (severity is None or c.severity == severity)]

    def as_dict(self, generated: str) -> dict:
        return {"generated": generated, "passed": self.passed, "checks": [asdict(c) for c in self.checks]}

    def summary(self) -> list[str]:
        return [f"{c.name}{' (warning)' if c.severity == 'warn' else ''}: {c.count} "
                f"({', '.join(map(str, c.found[:3]))})" for c in self.failures()]


def _check(name: str, found: list, severity: str = "error") -> Check:
    return Check(name, passed=not found, severity=severity, found=found[:SHOWN], count=len(found))


def sequence_gaps(ledger_ids: list[str], archive_ids: list[str]) -> list[str]:
    """Ids out of order within a day in the ledger, and missing numbers per day over ledger + archive."""
    problems: list[str] = []
    last: dict[str, int] = {}
    numbers: dict[str, set[int]] = defaultdict(set)
    for value in ledger_ids:  # each id parsed once: this runs over every event of the ledger
        parts = id_parts(value)
        if parts is None:
            continue
        day, number = parts
        numbers[day].add(number)
        if number <= last.get(day, 0):
            problems.append(f"{value} after EVT-{day}-{last[day]:03d}")
        last[day] = max(number, last.get(day, 0))
    for value in archive_ids:
        if parts := id_parts(value):
            numbers[parts[0]].add(parts[1])
    for day in sorted(numbers):
        missing = sorted(set(range(1, max(numbers[day]) + 1)) - numbers[day])
        problems += [f"EVT-{day}-{n:03d} missing" for n in missing]
    return problems


def structural_checks(parsed: ParsedLedger, archive_ids: list[str], open_loops_index: list[str] | None,
                      checkpoint: dict | None) -> list[Check]:
    ids = [e.id for e in parsed.events]
    known = set(ids) | set(archive_ids)
    duplicates = sorted(i for i, n in Counter(ids + archive_ids).items() if n > 1)
    state = LedgerState.of(parsed.events)
    dangling_supersedes = [f"{e.id} -> {e.supersedes}" for e in parsed.events if e.supersedes and e.supersedes not in known]
    dangling_related = [f"{e.id} -> {r}" for e in parsed.events for r in e.related if r not in known]
    expected = list(state.open_loops)
    index = open_loops_index if open_loops_index is not None else []
    last = (checkpoint or {}).get("last_processed_event_id")
    return [
        _check("valid_json", [f"line {e.line}: {e.reason}" for e in parsed.errors]),
        _check("unique_ids", duplicates),
        _check("sequential_ids", sequence_gaps(ids, archive_ids)),
        _check("supersedes_resolve", dangling_supersedes),
        _check("related_resolve", dangling_related),
        _check("open_loops_index_consistent", sorted(set(index) - set(expected))),
        _check("open_loop_completeness", sorted(set(expected) - set(index))),
        _check("checkpoint_valid", [last] if last and last not in known else []),
    ]


def pack_checks(packs: list[PackResult]) -> list[Check]:
    decayed = [i for p in packs for i in p.binding_decayed]
    uncovered = [e.id for p in packs for e in p.active if e.priority in ("P0", "P1") and e.id not in p.included]
    p0_missing = [e.id for p in packs for e in p.active if e.priority == "P0" and e.id not in p.included]
    over = [f"{p.project}: {p.words} words" for p in packs if p.words > 3000]
    return [
        _check("binding_never_decayed", decayed),
        _check("p0_coverage", p0_missing),
        _check("p0_p1_coverage", uncovered, severity="warn"),
        _check("pack_within_budget", over),
    ]


def check_ledger(structural: list[Check], packs: list[PackResult]) -> IntegrityReport:
    """The structural checks (already run) and the checks of the packs built after them."""
    return IntegrityReport(structural + pack_checks(packs))
